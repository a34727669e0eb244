// The contract every Remote passes. `shell` remotes (local, chroot, SSH) run
// real commands and must also prove that hostile values never execute;
// recording remotes (dry-run) pass the interface part. The suite holds for a
// remote user that is not root (root commands then go through sudo): files
// written as root are read and removed as root, and names are unique per run.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadImageSpec } from '../src/load.js';
import type { Remote } from '../src/remote.js';
import { shellQuote } from '../src/shell.js';
import { validateImage } from '../src/validate.js';

export interface ContractTarget {
  remote: Remote;
  cleanup?: () => Promise<void>;
}

/** Strings that would run `touch <marker>` if any shell evaluated them. */
export function hostileStrings(marker: string): string[] {
  return [
    `; touch ${marker}`,
    `$(touch ${marker})`,
    `\`touch ${marker}\``,
    `\ntouch ${marker}\n`,
    `' ; touch ${marker} ; '`,
    `"; touch ${marker}; "`,
    `| touch ${marker}`,
    `&& touch ${marker} #`,
    `\\'$(touch ${marker})\\'`,
    `x\ny'"$(touch ${marker})"'`,
  ];
}

export function remoteContract(
  name: string,
  make: () => Promise<ContractTarget>,
  kind: 'shell' | 'recording',
): void {
  describe(`${name} remote contract`, () => {
    let target: ContractTarget;
    // Building a target (a debootstrap tree) can take minutes the first time.
    beforeAll(async () => {
      target = await make();
    }, 900_000);
    afterAll(async () => {
      await target?.remote.close?.();
      await target?.cleanup?.();
    });

    it('resolves a failing command with its exit code instead of rejecting', async () => {
      const r = await target.remote.exec('echo out; echo err >&2; exit 3');
      expect(typeof r.exitCode).toBe('number');
      expect(typeof r.stdout).toBe('string');
      expect(typeof r.stderr).toBe('string');
      if (kind === 'shell') expect(r).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
    });

    it('names its distribution in lower case', async () => {
      const d = await target.remote.distro();
      expect(d).toMatch(/^[a-z0-9._-]+$/);
    });

    it('writes files with the given content and mode', async () => {
      const id = randomBytes(4).toString('hex');
      const text = `/tmp/siv-contract-${id}.txt`;
      const bin = `/tmp/siv-contract-${id}.bin`;
      await target.remote.writeFile(text, 'line 1\nline 2\n', { mode: 0o640, asRoot: true });
      if (kind !== 'shell') return;
      const r = await target.remote.exec(`cat ${text}; stat -c '%a %u' ${text}; rm -f ${text}`, {
        asRoot: true,
      });
      expect(r.stdout).toBe('line 1\nline 2\n640 0\n');
      await target.remote.writeFile(bin, new Uint8Array([0, 1, 2, 255]));
      const b = await target.remote.exec(`od -An -tu1 ${bin}; stat -c %u ${bin}; id -u; rm -f ${bin}`);
      const [bytes, owner, me] = b.stdout.trim().split('\n');
      expect(bytes?.trim().split(/\s+/)).toEqual(['0', '1', '2', '255']);
      // Without asRoot the file belongs to the remote's own user.
      expect(owner).toBe(me);
    });

    if (kind !== 'shell') return;

    it('feeds input to standard input, and an empty one otherwise', async () => {
      expect((await target.remote.exec('cat', { input: 'a\nb' })).stdout).toBe('a\nb');
      expect((await target.remote.exec('cat')).stdout).toBe('');
    });

    it('runs as root when asked', async () => {
      expect((await target.remote.exec('id -u', { asRoot: true })).stdout.trim()).toBe('0');
    });

    it('passes env values literally, however hostile', async () => {
      const marker = `/tmp/siv-pwned-${randomBytes(6).toString('hex')}`;
      const values = hostileStrings(marker);
      const env = Object.fromEntries(values.map((v, i) => [`V${i}`, v]));
      const printf = `printf '%s\\001' ${values.map((_, i) => `"$V${i}"`).join(' ')}`;
      for (const asRoot of [false, true]) {
        const r = await target.remote.exec(printf, { env, asRoot });
        expect(r.stdout.split('\u0001').slice(0, -1)).toEqual(values);
      }
      expect((await target.remote.exec(`test -e ${marker}`)).exitCode).toBe(1);
    });

    it('replaces a symlink at the target instead of writing through it', async () => {
      const id = randomBytes(4).toString('hex');
      await target.remote.exec(
        `printf keep > /tmp/siv-victim-${id}; ln -sf /tmp/siv-victim-${id} /tmp/siv-link-${id}`,
      );
      await target.remote.writeFile(`/tmp/siv-link-${id}`, 'new', { asRoot: true });
      const r = await target.remote.exec(
        `cat /tmp/siv-victim-${id}; echo; test -L /tmp/siv-link-${id} && echo link; cat /tmp/siv-link-${id}; echo; stat -c %a /tmp/siv-link-${id}; printf '%o\\n' $(( 0666 & ~0$(umask) )); ls -a /tmp | grep -c siv-write; rm -f /tmp/siv-victim-${id} /tmp/siv-link-${id}`,
        { asRoot: true },
      );
      const [victim, content, mode, expectedMode, leftovers] = r.stdout.trim().split('\n');
      expect([victim, content, leftovers]).toEqual(['keep', 'new', '0']);
      expect(mode).toBe(expectedMode);
    });

    it('copies a run of copy_script files in one command, byte for byte', async () => {
      const id = randomBytes(4).toString('hex');
      const bodies = ['#!/bin/sh\necho ü $(x)\n', '{"a": [1, 2]}\n', ''.padEnd(3000, 'z')];
      const read = { asRoot: true };
      const spec = loadImageSpec(
        `validators:\n${bodies.map((b, i) => `  - copy_script: {c/r/siv-${id}-${i}: {inline: ${JSON.stringify(b)}}}`).join('\n')}\n`,
      );
      const report = await validateImage(spec, target.remote, { reconcile: false });
      expect(report.ok, report.failure?.message).toBe(true);
      expect(report.commandCount).toBe(2);
      for (const [i, b] of bodies.entries()) {
        const r = await target.remote.exec(`cat /tmp/siv-${id}-${i}; rm -f /tmp/siv-${id}-${i}`, read);
        expect(r.stdout).toBe(b);
      }
    });

    it('writes to hostile paths literally', async () => {
      // Evaluated by a shell, this name would lose its $(…) and backticks.
      const name = `siv name '$(echo pwned)' ; x \`id\` ${randomBytes(4).toString('hex')}`;
      const path = `/tmp/${name}`;
      await target.remote.writeFile(path, 'x', { asRoot: true });
      const listing = await target.remote.exec('ls -1 /tmp');
      expect(listing.stdout.split('\n')).toContain(name);
      const r = await target.remote.exec('cat "$P"; rm -f "$P"', { env: { P: path }, asRoot: true });
      expect(r.stdout).toBe('x');
    });

    it('never runs hostile package names, versions, argument values or env values during a validation', async () => {
      const marker = `/tmp/siv-pwned-${randomBytes(6).toString('hex')}`;
      const hostile = hostileStrings(marker);
      const names = hostile.map((_, i) => `evil_${i}`);
      const spec = loadImageSpec(
        [
          'arguments:',
          ...names.map((n) => `  ${n}: {default: x}`),
          'validators:',
          '  - any:',
          `      - package: [${hostile.map((h) => JSON.stringify(h)).join(', ')}]`,
          '      - script: {fallback: {inline: "true"}}',
          // An installed package pinned to every hostile version: one check command holds them all.
          '  - any:',
          `      - package: [${hostile.map((h) => `{dpkg: {version: ${JSON.stringify(h)}}}`).join(', ')}]`,
          '      - script: {fallback: {inline: "true"}}',
          '  - script:',
          '      show:',
          `        inline: printf '%s\\001' ${names.map((n) => `"$${n}"`).join(' ')} "$EXTRA"`,
          `        env_vars: [${names.join(', ')}, EXTRA]`,
          '        output: shown',
          '',
        ].join('\n'),
      );
      const args = Object.fromEntries(names.map((n, i) => [n, hostile[i] as string]));
      const extra = hostile.join('');
      const distro = await target.remote.distro();
      // Both package families, whatever the machine: dpkg/dpkg-query and rpm commands (rpm may
      // be missing, which fails the check just the same) each meet every hostile string.
      for (const family of ['debian', 'redhat']) {
        for (const mode of ['batched', 'sahara'] as const) {
          const report = await validateImage(spec, target.remote, {
            reconcile: false,
            mode,
            arguments: args,
            env: { EXTRA: extra },
            families: { [distro]: family },
          });
          expect(report.ok, report.failure?.message).toBe(true);
          expect(report.variables.shown?.split('\u0001').slice(0, -1)).toEqual([...hostile, extra]);
          const checks = report.results.filter((r) => r.type === 'package');
          expect(checks.map((r) => r.status)).toEqual(checks.map(() => 'failed'));
          expect(checks).toHaveLength(2);
          const named = checks[0]?.commands.map((c) => c.command).join('\n');
          const pinned = checks[1]?.commands.map((c) => c.command).join('\n');
          for (const h of hostile) {
            expect(named).toContain(shellQuote(h));
            const word =
              family === 'debian' && mode === 'batched' ? `install ok installed ${h}` : `dpkg-${h}`;
            expect(pinned).toContain(shellQuote(word));
          }
        }
      }
      expect((await target.remote.exec(`test -e ${marker}`)).exitCode).toBe(1);
      // Many round trips (Sahara mode runs each script in three); SSH under load is slow.
    }, 120_000);
  });
}
