import { readPackageVersion } from '@stackspec/core/cli';

/**
 * The version of `@stackspec/cli`, read from its package.json when the
 * module loads (from the sources, a build or an installed tarball alike);
 * written into SARIF logs, `--version` and `/healthz`.
 */
export const VERSION: string = readPackageVersion(import.meta.url, '@stackspec/cli');
