// Test support for suites that need a real service or a privilege: sshd, a
// chroot, PostgreSQL, the Python oracles. One rule for all of them: when the
// service cannot be had, the suite is skipped locally with the reason
// printed, and fails in CI (STACKSPEC_REQUIRE_ORACLES=1), where a quiet skip
// would hide a gap in what was tested.

/** Whether a service can be used, and why not when it cannot. */
export type Availability = { ok: true } | { ok: false; reason: string };

/**
 * Decides whether a suite that needs a real service runs: true when it can;
 * false (after printing why) when it cannot; throws when
 * STACKSPEC_REQUIRE_ORACLES is set. Use with `describe.runIf(...)`.
 */
export function serviceAvailable(name: string, check: Availability): boolean {
  if (check.ok) return true;
  const message = `${name} unavailable (${check.reason})`;
  if (process.env.STACKSPEC_REQUIRE_ORACLES) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

/** Whether this process is root (chroot and sshd privilege separation need it). */
export function isRoot(): boolean {
  return process.getuid?.() === 0;
}
