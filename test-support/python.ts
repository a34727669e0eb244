// Test support for conformance suites that run the real OpenStack code
// (Debian's python3-nova, python3-placement, python3-ironic, python3-sahara,
// python3-heat) as an oracle through /usr/bin/python3.
//
// When the interpreter or a module is missing, suites are skipped with the
// reason printed, so a contributor without the Debian packages can still run
// `pnpm test`. CI sets STACKSPEC_REQUIRE_ORACLES=1 and installs the packages,
// which turns a missing oracle into a failure instead of a silent skip.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { serviceAvailable } from './require.js';

export const PYTHON = '/usr/bin/python3';

/** Whether `/usr/bin/python3` can import every named module. */
export function pythonHasModules(modules: readonly string[]): { ok: true } | { ok: false; reason: string } {
  if (!existsSync(PYTHON)) return { ok: false, reason: `${PYTHON} is not installed` };
  const r = spawnSync(PYTHON, ['-c', modules.map((m) => `import ${m}`).join('; ')], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status === 0) return { ok: true };
  return {
    ok: false,
    reason: (r.stderr || r.error?.message || 'import failed').trim().split('\n').pop() ?? '',
  };
}

/**
 * Decides whether an oracle-backed suite runs. Returns true when it can run;
 * false (after printing why) when it must be skipped; throws when
 * STACKSPEC_REQUIRE_ORACLES is set and the oracle is missing.
 */
export function oracleAvailable(name: string, modules: readonly string[]): boolean {
  const check = pythonHasModules(modules);
  return serviceAvailable(
    `${name} oracle`,
    check.ok
      ? check
      : { ok: false, reason: `${check.reason}; install the Debian packages listed in .ci/run` },
  );
}

/** Runs a Python script with Debian's interpreter, feeding `input` on stdin; throws on failure. */
export function runPython(script: string, input = '', timeoutMs = 300_000): string {
  const r = spawnSync(PYTHON, ['-c', script], {
    input,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 512 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`python exited with ${r.status}: ${r.stderr}`);
  return r.stdout;
}
