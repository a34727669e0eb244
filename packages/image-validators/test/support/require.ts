/**
 * Decides whether a suite that needs a real service runs: true when it can;
 * false (after printing why) when it cannot; throws in CI
 * (STACKSPEC_REQUIRE_ORACLES=1), where a silent skip would hide a gap.
 */
export function serviceAvailable(name: string, check: { ok: true } | { ok: false; reason: string }): boolean {
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
