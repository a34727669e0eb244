/** The version of `@stackspec/cli`, written into SARIF logs and `--version`. */
export const VERSION = '0.1.0';
