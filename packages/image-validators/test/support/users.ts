// Throwaway local accounts for the paths that only a user other than root
// takes: root commands through `sudo -n`, and a sudo that wants a password.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe } from 'vitest';
import { serviceAvailable } from '../../../../test-support/require.js';

/** A throwaway local account, for logins and processes that are not root. */
export interface TestUser {
  name: string;
  /** Its random password (sshd accepts it too). */
  password: string;
  uid: number;
  gid: number;
  /** Whether it may run anything through sudo without a password. */
  sudo: boolean;
  /** Removes the account and its sudoers rule. */
  remove(): void;
}

/** Whether throwaway users can be made here: root, useradd and (for sudo users) sudo. */
export function testUsersAvailable(): { ok: true } | { ok: false; reason: string } {
  if (process.getuid?.() !== 0) return { ok: false, reason: 'creating users needs root' };
  if (!existsSync('/usr/sbin/useradd')) return { ok: false, reason: 'useradd is not installed' };
  if (!existsSync('/usr/bin/sudo'))
    return { ok: false, reason: 'sudo is not installed (apt-get install sudo)' };
  return { ok: true };
}

function must(argv: string[], input?: string): void {
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8', ...(input ? { input } : {}) });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr || r.error?.message}`);
}

/**
 * Creates a local account with a random name and password, and with `sudo`
 * a NOPASSWD sudoers rule for it (checked with visudo). Call `remove()`
 * when done.
 */
export function createTestUser(options: { sudo: boolean }): TestUser {
  const name = `siv${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('base64url');
  const rule = `/etc/sudoers.d/${name}`;
  must(['useradd', '--no-create-home', '--home-dir', '/', '--shell', '/bin/sh', name]);
  const remove = () => {
    rmSync(rule, { force: true });
    // Sessions of the user end with sshd; -f removes the account even if one lingers.
    spawnSync('userdel', ['-f', name]);
  };
  try {
    // With UsePAM off, sshd refuses accounts whose password is locked, even for key logins.
    must(['chpasswd'], `${name}:${password}\n`);
    if (options.sudo) {
      writeFileSync(rule, `${name} ALL=(ALL) NOPASSWD: ALL\n`, { mode: 0o440 });
      must(['visudo', '-c', '-q', '-f', rule]);
    }
  } catch (e) {
    remove();
    throw e;
  }
  const id = (flag: string) => Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout.trim());
  return { name, password, uid: id('-u'), gid: id('-g'), sudo: options.sudo, remove };
}

/** The two users {@link describeWithTestUsers} makes, read inside tests. */
export interface TestUsers {
  /** May run anything through sudo without a password. */
  sudoer(): TestUser;
  /** Has no sudo rule, so sudo asks for a password. */
  plain(): TestUser;
}

/**
 * A describe block with a sudo user and a user without sudo, made before its
 * tests and removed after them. Skipped with the reason printed where users
 * cannot be made (and failing under STACKSPEC_REQUIRE_ORACLES).
 */
export function describeWithTestUsers(name: string, body: (users: TestUsers) => void): void {
  describe.runIf(serviceAvailable('throwaway users with sudo', testUsersAvailable()))(name, () => {
    let sudoer: TestUser | undefined;
    let plain: TestUser | undefined;
    beforeAll(() => {
      sudoer = createTestUser({ sudo: true });
      plain = createTestUser({ sudo: false });
    });
    afterAll(() => {
      sudoer?.remove();
      plain?.remove();
    });
    const made = (user: TestUser | undefined) => {
      if (!user) throw new Error('the test users were not made');
      return user;
    };
    body({ sudoer: () => made(sudoer), plain: () => made(plain) });
  });
}
