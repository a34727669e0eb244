import { LATEST_OS_TRAITS } from '@stackspec/core';

/**
 * The deploy interfaces a step may name, in the order the newest Ironic
 * lists them (its error messages print this list).
 */
export const DEPLOY_INTERFACES = [
  'vendor',
  'power',
  'management',
  'firmware',
  'deploy',
  'bios',
  'raid',
] as const;

/** A deploy interface name of the newest Ironic. */
export type DeployInterface = (typeof DEPLOY_INTERFACES)[number];

/**
 * Tie-break rank per interface when two deploy steps share a priority
 * (higher runs first). Newest Ironic; 21.4 has the same relative order
 * without `vendor` and `firmware`.
 */
export const DEPLOY_INTERFACE_RANK: Readonly<Record<DeployInterface, number>> = {
  vendor: 7,
  power: 6,
  management: 5,
  firmware: 4,
  deploy: 3,
  bios: 2,
  raid: 1,
};

/**
 * What differs between the Ironic releases this package can imitate: the
 * interface list, the os-traits release used for template names and the
 * newest API microversion. Pick one with {@link ironicProfile}.
 */
export interface IronicProfile {
  /** `latest` or `21.4`. */
  readonly release: 'latest' | '21.4';
  /** Interfaces accepted in template steps, in Ironic's order. */
  readonly interfaces: readonly string[];
  /** Interface rank used to order steps of equal priority. */
  readonly interfaceRank: Readonly<Record<string, number>>;
  /** The os-traits release whose standard names are valid template names. */
  readonly traitsRelease: string;
  /** Newest API microversion served. */
  readonly maxVersion: string;
}

const LATEST: IronicProfile = Object.freeze({
  release: 'latest',
  interfaces: DEPLOY_INTERFACES,
  interfaceRank: DEPLOY_INTERFACE_RANK,
  traitsRelease: LATEST_OS_TRAITS,
  maxVersion: '1.115',
});

const IRONIC_21_4: IronicProfile = Object.freeze({
  release: '21.4',
  interfaces: ['power', 'management', 'deploy', 'bios', 'raid'],
  interfaceRank: { power: 5, management: 4, deploy: 3, bios: 2, raid: 1 },
  traitsRelease: '2.9.0',
  maxVersion: '1.82',
});

/**
 * The behaviour profile of an Ironic release: `latest` (default; API 1.115,
 * os-traits 3.9.0, interfaces incl. `vendor` and `firmware`) or `21.4`
 * (Debian 12: API 1.82, os-traits 2.9.0, five interfaces).
 *
 * @example
 * ironicProfile('21.4').maxVersion; // '1.82'
 */
export function ironicProfile(release: 'latest' | '21.4' = 'latest'): IronicProfile {
  return release === '21.4' ? IRONIC_21_4 : LATEST;
}
