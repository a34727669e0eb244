// A small network for jump-host tests: two network namespaces joined by veth
// pairs, so that a target really is reachable only through a bastion.
//
//   this process ── 10.N.M.1 ═veth═ 10.N.M.2 [bastion ns] 10.N.M.5 ═veth═ 10.N.M.6 [target ns]
//
// The test process (the root namespace) has a route to the bastion's link
// only; the bastion namespace forwards no packets (a new namespace starts with
// ip_forward off), so only a process inside it, such as the bastion's sshd
// opening a forwarded channel, reaches the target. The target's loopback
// (127.0.0.1 inside its namespace) is reachable from the target alone. An
// `unreachable` route for the target's link in the root namespace makes a
// direct attempt fail at once instead of wandering off through the default
// route. Needs root and iproute2 (`ip`).

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Availability } from '../../../../test-support/require.js';

function ip(args: readonly string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  return { ok: r.status === 0, out: r.stdout ?? '', err: r.stderr || r.error?.message || '' };
}

function must(args: readonly string[]): string {
  const r = ip(args);
  if (!r.ok) throw new Error(`ip ${args.join(' ')} failed: ${r.err.trim()}`);
  return r.out;
}

/** Whether network namespaces can be made here: root, iproute2, and a kernel and container that allow them. */
export function netnsAvailable(): Availability {
  if (process.getuid?.() !== 0) return { ok: false, reason: 'network namespaces need root' };
  const probe = `siv-probe-${process.pid}`;
  const added = ip(['netns', 'add', probe]);
  if (!added.ok) {
    if (/ENOENT|not found|spawn ip/i.test(added.err))
      return { ok: false, reason: 'ip is not installed (apt-get install iproute2)' };
    return { ok: false, reason: `ip netns add failed: ${added.err.trim()}` };
  }
  ip(['netns', 'del', probe]);
  return { ok: true };
}

/** The namespaces and addresses of {@link createJumpLab}. */
export interface JumpLab {
  bastionNs: string;
  targetNs: string;
  /** The bastion's address on the link to this process. */
  bastionAddress: string;
  /** The target's address on the link to the bastion; unreachable from this process. */
  targetAddress: string;
  /** Ends every process left in the namespaces, then removes them, their links and the route. */
  remove(): void;
}

/** Builds the two namespaces and links of the diagram above, on a free 10.N.M.0/29. */
export function createJumpLab(): JumpLab {
  const routes = must(['-4', 'route', 'show', 'table', 'all']) + must(['-4', 'addr', 'show']);
  let prefix = '';
  for (let i = 0; i < 50 && !prefix; i += 1) {
    const [a, b] = randomBytes(2);
    const candidate = `10.${200 + ((a as number) % 50)}.${b}`;
    if (!routes.includes(`${candidate}.`)) prefix = candidate;
  }
  if (!prefix) throw new Error('no free 10.x.y.0/29 for the test network');
  const id = randomBytes(3).toString('hex');
  const bastionNs = `siv-bastion-${id}`;
  const targetNs = `siv-target-${id}`;
  const outer = `svb${id}o`;
  const inner = `svt${id}i`;
  const steps: string[][] = [
    ['netns', 'add', bastionNs],
    ['netns', 'add', targetNs],
    ['link', 'add', outer, 'type', 'veth', 'peer', 'name', `svb${id}b`],
    ['link', 'set', `svb${id}b`, 'netns', bastionNs],
    ['addr', 'add', `${prefix}.1/30`, 'dev', outer],
    ['link', 'set', outer, 'up'],
    ['-n', bastionNs, 'link', 'set', 'lo', 'up'],
    ['-n', bastionNs, 'addr', 'add', `${prefix}.2/30`, 'dev', `svb${id}b`],
    ['-n', bastionNs, 'link', 'set', `svb${id}b`, 'up'],
    ['-n', bastionNs, 'link', 'add', inner, 'type', 'veth', 'peer', 'name', `svt${id}t`],
    ['-n', bastionNs, 'link', 'set', `svt${id}t`, 'netns', targetNs],
    ['-n', bastionNs, 'addr', 'add', `${prefix}.5/30`, 'dev', inner],
    ['-n', bastionNs, 'link', 'set', inner, 'up'],
    ['-n', targetNs, 'link', 'set', 'lo', 'up'],
    ['-n', targetNs, 'addr', 'add', `${prefix}.6/30`, 'dev', `svt${id}t`],
    ['-n', targetNs, 'link', 'set', `svt${id}t`, 'up'],
    ['route', 'add', 'unreachable', `${prefix}.4/30`],
  ];
  const remove = () => {
    for (const ns of [targetNs, bastionNs]) {
      // Only processes this lab started live in its namespaces (the sshds and their sessions).
      for (const pid of ip(['netns', 'pids', ns]).out.split(/\s+/).filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      ip(['netns', 'del', ns]);
    }
    ip(['link', 'del', outer]);
    ip(['route', 'del', 'unreachable', `${prefix}.4/30`]);
  };
  try {
    for (const step of steps) must(step);
  } catch (e) {
    remove();
    throw e;
  }
  return { bastionNs, targetNs, bastionAddress: `${prefix}.2`, targetAddress: `${prefix}.6`, remove };
}
