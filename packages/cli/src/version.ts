import pkg from '../package.json' with { type: 'json' };

/** The version of `@stackspec/cli`, from its package.json; written into SARIF logs, `--version` and `/healthz`. */
export const VERSION: string = pkg.version;
