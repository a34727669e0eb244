// Runs test-support/oslo-policy.py: a real OpenStack service's registered
// policy defaults decide rules, so a package can compare its own rule table
// with the service's on every combination of roles, scope and project.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from './python.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'oslo-policy.py');

/** Credentials as oslo.policy names them. */
export interface OracleCredentials {
  roles: string[];
  system_scope: string | null;
  project_id: string | null;
  project_name: string | null;
  project_domain_id: string | null;
  user_id: string | null;
}

/** One decision to ask for. */
export interface PolicyCase {
  rule: string;
  credentials: OracleCredentials;
  target: Record<string, string | null>;
}

/**
 * Every combination of the given role sets with no scope or system scope,
 * and no project or project `p1` (named by each of `projectNames`).
 */
export function credentialMatrix(
  roleSets: readonly (readonly string[])[],
  projectNames: readonly (string | null)[] = [null],
): OracleCredentials[] {
  const out: OracleCredentials[] = [];
  for (const roles of roleSets) {
    for (const scope of [null, 'all']) {
      for (const project of [null, 'p1']) {
        for (const name of projectNames) {
          out.push({
            roles: [...roles],
            system_scope: scope,
            project_id: project,
            project_name: name,
            project_domain_id: null,
            user_id: 'u1',
          });
        }
      }
    }
  }
  return out;
}

/** Role sets worth trying: none, each default role alone and as Keystone expands it, and legacy ones. */
export const ROLE_SETS: readonly (readonly string[])[] = [
  [],
  ['reader'],
  ['member'],
  ['member', 'reader'],
  ['admin'],
  ['admin', 'member', 'reader'],
  ['Admin'],
  ['service'],
  ['other'],
];

/**
 * The service's decisions for `cases`, in order: `new` with
 * enforce_new_defaults on, `legacy` with it off (enforce_scope off in both),
 * `shipped` with the service's configuration as the release ships it.
 */
export function runPolicyOracle(
  service: 'nova' | 'placement' | 'ironic',
  mode: 'new' | 'legacy' | 'shipped',
  cases: readonly PolicyCase[],
): boolean[] {
  const r = spawnSync(PYTHON, [SCRIPT, service, mode], {
    input: `${cases.map((c) => JSON.stringify(c)).join('\n')}\n`,
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`the ${service} policy oracle failed: ${r.error?.message ?? r.stderr}`);
  return r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as boolean);
}

/** Our credentials for an oracle's. */
export function toRequestCredentials(c: OracleCredentials): {
  roles: string[];
  systemScope?: string;
  projectId?: string;
  projectName?: string;
  userId?: string;
} {
  return {
    roles: c.roles,
    ...(c.system_scope ? { systemScope: c.system_scope } : {}),
    ...(c.project_id ? { projectId: c.project_id } : {}),
    ...(c.project_name ? { projectName: c.project_name } : {}),
    ...(c.user_id ? { userId: c.user_id } : {}),
  };
}

/** Our credentials, as {@link toRequestCredentials} makes them from an oracle's. */
export type RequestCredentials = ReturnType<typeof toRequestCredentials>;

/** What {@link describePolicyOracle} compares. */
export interface PolicyOracleSuite<Mode extends 'new' | 'legacy' | 'shipped'> {
  /** Title of the suite. */
  title: string;
  /** The service whose registered defaults decide. */
  service: 'nova' | 'placement' | 'ironic';
  /** Python modules the oracle needs; without them the suite is skipped (a failure in CI). */
  modules: readonly string[];
  /** The configurations compared, one test each (`with <mode> defaults`). */
  modes: readonly Mode[];
  /** Every decision to compare, asked afresh for each mode. */
  cases: () => PolicyCase[];
  /** Our policy as configured for `mode`: decides a case's rule for its credentials and target. */
  ours: (
    mode: Mode,
  ) => (
    rule: string,
    credentials: RequestCredentials,
    target: Readonly<Record<string, string | null>>,
  ) => boolean;
}

/**
 * A suite in which, for each mode, the service's oracle and our policy decide
 * every case alike: the oracle allows at least one case, and no case is
 * decided otherwise by ours (the differences, with our decision as `ours`,
 * are the failure message).
 */
export function describePolicyOracle<Mode extends 'new' | 'legacy' | 'shipped'>(
  suite: PolicyOracleSuite<Mode>,
): void {
  describe.runIf(oracleAvailable(suite.service, suite.modules))(suite.title, () => {
    it.each(suite.modes)(
      'with %s defaults',
      (mode) => {
        const cases = suite.cases();
        const theirs = runPolicyOracle(suite.service, mode, cases);
        const policy = suite.ours(mode);
        const differences = cases.flatMap((c, i) => {
          const ours = policy(c.rule, toRequestCredentials(c.credentials), c.target);
          return ours === theirs[i] ? [] : [{ ...c, ours }];
        });
        expect(theirs.filter(Boolean).length).toBeGreaterThan(0);
        expect(differences).toEqual([]);
      },
      120_000,
    );
  });
}
