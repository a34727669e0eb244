import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  certificateAuthoritiesFor,
  checkHostKey,
  formatKnownHostsLine,
  hostFieldMatches,
  hostKeyName,
  knownKeyTypes,
  parseKnownHosts,
  revokedEntry,
} from './known-hosts.js';
import { sshString } from './ssh-wire.js';

const keyOf = (type: string) => Buffer.concat([sshString(type), sshString(randomBytes(32))]);
const b64 = (b: Buffer) => b.toString('base64');

describe('parseKnownHosts', () => {
  it('reads plain, marked and commented lines, with their line numbers', () => {
    const a = keyOf('ssh-ed25519');
    const ca = keyOf('ssh-ed25519');
    const text = [
      '# a comment',
      '',
      `host1,10.0.0.1 ssh-ed25519 ${b64(a)} a comment`,
      `@cert-authority *.lab ssh-ed25519 ${b64(ca)}`,
      `  @revoked * ssh-ed25519 ${b64(a)}`,
    ].join('\n');
    const { entries, diagnostics } = parseKnownHosts(text, 'kh');
    expect(diagnostics).toEqual([]);
    expect(entries.map((e) => [e.line, e.marker, e.hosts, e.keyType])).toEqual([
      [3, undefined, 'host1,10.0.0.1', 'ssh-ed25519'],
      [4, 'cert-authority', '*.lab', 'ssh-ed25519'],
      [5, 'revoked', '*', 'ssh-ed25519'],
    ]);
    expect(entries[0]?.key.equals(a)).toBe(true);
    expect(entries[0]?.file).toBe('kh');
  });

  it('skips lines it cannot use, each with a located warning saying why', () => {
    const a = keyOf('ssh-ed25519');
    const text = [
      `@trusted host ssh-ed25519 ${b64(a)}`,
      'host-without-key',
      'host ssh-ed25519 not*base64',
      `host ssh-rsa ${b64(a)}`,
      'host ssh-ed25519 AAAA',
      `good ssh-ed25519 ${b64(a)}`,
    ].join('\n');
    const { entries, diagnostics } = parseKnownHosts(text, '/home/u/.ssh/known_hosts');
    expect(entries.map((e) => e.line)).toEqual([6]);
    expect(diagnostics.map((d) => [d.code, d.severity, d.file, d.line])).toEqual(
      [1, 2, 3, 4, 5].map((line) => [
        'image/known-hosts/bad-line',
        'warning',
        '/home/u/.ssh/known_hosts',
        line,
      ]),
    );
    expect(diagnostics[0]?.message).toContain('"@trusted" is neither @cert-authority nor @revoked');
    expect(diagnostics[3]?.message).toContain('it says ssh-rsa but the key is ssh-ed25519');
  });

  it('yields entries or warnings for any text, never an exception', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const { entries, diagnostics } = parseKnownHosts(text);
        const lines = text.split('\n').length;
        for (const e of [...entries, ...diagnostics]) expect(e.line).toBeLessThanOrEqual(lines);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            '@revoked',
            '*',
            '|1|',
            'ssh-ed25519',
            'AAAA',
            b64(keyOf('ssh-ed25519')),
            ' ',
            '\n',
            ',',
            '!',
          ),
        ),
        (parts) => {
          parseKnownHosts(parts.join(' '));
        },
      ),
    );
  });
});

describe('hostFieldMatches', () => {
  it('matches names, patterns and port-qualified names, case-insensitively', () => {
    expect(hostFieldMatches('host1,10.0.0.1', ['10.0.0.1'])).toBe(true);
    expect(hostFieldMatches('*.lab.example', ['Build.LAB.example'])).toBe(true);
    expect(hostFieldMatches('10.0.0.?', ['10.0.0.7'])).toBe(true);
    expect(hostFieldMatches('10.0.0.?', ['10.0.0.17'])).toBe(false);
    expect(hostFieldMatches('[10.0.0.5]:2222', ['[10.0.0.5]:2222'])).toBe(true);
    expect(hostFieldMatches('10.0.0.5', ['[10.0.0.5]:2222'])).toBe(false);
    expect(hostFieldMatches('[*.lab]:2222', ['[a.lab]:2222'])).toBe(true);
  });

  it('lets a matching negated pattern rule the host out', () => {
    expect(hostFieldMatches('!10.0.0.9,10.0.0.*', ['10.0.0.9'])).toBe(false);
    expect(hostFieldMatches('!10.0.0.9,10.0.0.*', ['10.0.0.8'])).toBe(true);
    expect(hostFieldMatches('!10.0.0.9', ['10.0.0.8'])).toBe(false);
  });

  it('matches hashed names (HMAC-SHA1 of the name with the salt)', () => {
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update('[10.0.0.5]:2222').digest();
    const field = `|1|${b64(salt)}|${b64(hash)}`;
    expect(hostFieldMatches(field, ['[10.0.0.5]:2222'])).toBe(true);
    expect(hostFieldMatches(field, ['10.0.0.5'])).toBe(false);
    expect(hostFieldMatches('|1|', ['x'])).toBe(false);
    expect(hostFieldMatches('|1|%%%|abc', ['x'])).toBe(false);
  });
});

describe('checkHostKey', () => {
  const key = keyOf('ssh-ed25519');
  const other = keyOf('ssh-ed25519');
  const rsa = keyOf('ssh-rsa');
  const name = hostKeyName('10.0.0.5', 2222);
  const parse = (lines: string[]) => parseKnownHosts(lines.join('\n'), 'kh').entries;

  it('trusts a listed key and names its line', () => {
    const v = checkHostKey(
      parse([`${name} ssh-rsa ${b64(rsa)}`, `${name} ssh-ed25519 ${b64(key)}`]),
      [name],
      key,
    );
    expect(v).toMatchObject({ status: 'trusted', entry: { line: 2 } });
  });

  it('calls a different key of a listed type changed, with the line to fix', () => {
    const v = checkHostKey(
      parse(['other ssh-ed25519 ' + b64(key), `${name} ssh-ed25519 ${b64(other)}`]),
      [name],
      key,
    );
    expect(v).toMatchObject({ status: 'changed', entry: { line: 2, file: 'kh' } });
  });

  it('calls a key of a type not listed unknown, and gives the keys of other types', () => {
    const v = checkHostKey(parse([`${name} ssh-rsa ${b64(rsa)}`]), [name], key);
    expect(v.status).toBe('unknown');
    expect(v.status === 'unknown' && v.others.map((e) => e.keyType)).toEqual(['ssh-rsa']);
    expect(checkHostKey([], [name], key)).toEqual({ status: 'unknown', others: [] });
  });

  it('refuses a revoked key even when a line trusts it', () => {
    const entries = parse([`${name} ssh-ed25519 ${b64(key)}`, `@revoked * ssh-ed25519 ${b64(key)}`]);
    expect(checkHostKey(entries, [name], key)).toMatchObject({ status: 'revoked', entry: { line: 2 } });
    expect(revokedEntry(entries, [name], key)?.line).toBe(2);
    expect(revokedEntry(entries, [name], other)).toBeUndefined();
  });

  it('leaves @cert-authority lines to certificateAuthoritiesFor', () => {
    const entries = parse([
      `@cert-authority *.lab ssh-ed25519 ${b64(key)}`,
      `@cert-authority other ssh-ed25519 ${b64(other)}`,
    ]);
    expect(checkHostKey(entries, ['a.lab'], key).status).toBe('unknown');
    expect(certificateAuthoritiesFor(entries, ['a.lab']).map((e) => e.line)).toEqual([1]);
  });

  it('lists the key types known for a host, in file order', () => {
    const entries = parse([
      `${name} ssh-rsa ${b64(rsa)}`,
      `${name} ssh-ed25519 ${b64(key)}`,
      `${name} ssh-rsa ${b64(keyOf('ssh-rsa'))}`,
      `elsewhere ecdsa-sha2-nistp256 ${b64(keyOf('ecdsa-sha2-nistp256'))}`,
    ]);
    expect(knownKeyTypes(entries, [name])).toEqual(['ssh-rsa', 'ssh-ed25519']);
  });
});

describe('formatKnownHostsLine', () => {
  it('writes lines that read back as the same key for the same name, plain or hashed', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), fc.boolean(), (host, port, hash) => {
        const key = keyOf('ssh-ed25519');
        const name = hostKeyName(host, port);
        const line = formatKnownHostsLine(name, key, { hash });
        expect(line.startsWith('|1|')).toBe(hash);
        const { entries, diagnostics } = parseKnownHosts(line);
        expect(diagnostics).toEqual([]);
        expect(checkHostKey(entries, [name], key).status).toBe('trusted');
        expect(checkHostKey(entries, [`${name}x`], key).status).toBe('unknown');
      }),
      { numRuns: 50 },
    );
  });

  it('hashes as OpenSSH does: the salt given gives the same line', () => {
    const key = keyOf('ssh-ed25519');
    const salt = Buffer.alloc(20, 7);
    const hash = createHmac('sha1', salt).update('host').digest('base64');
    expect(formatKnownHostsLine('host', key, { hash: true, salt })).toBe(
      `|1|${salt.toString('base64')}|${hash} ssh-ed25519 ${b64(key)}`,
    );
  });
});
