import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchWildcard } from './ssh-certificate.js';
import {
  expandSshPath,
  MAX_INCLUDE_DEPTH,
  parseProxyJump,
  parseSshConfig,
  type ResolvedSshHost,
  resolveSshConfig,
  type SshConfigContext,
} from './ssh-config.js';

const HOME = '/home/ops';

/** Resolves `host` against in-memory files; the first is the user config, `/etc/ssh/ssh_config` the system one. */
function resolveWith(
  files: Record<string, string>,
  host: string,
  extra: Partial<SshConfigContext> = {},
): ResolvedSshHost {
  const paths = Object.keys(files);
  return resolveSshConfig({
    host,
    files: paths
      .filter((p) => p === `${HOME}/.ssh/config` || p === '/etc/ssh/ssh_config')
      .map((path) => ({ path, kind: path.startsWith('/etc/') ? 'system' : 'user' })),
    home: HOME,
    localUser: 'ops',
    load: (path) => (path in files ? { text: files[path] as string } : { missing: true }),
    glob: (pattern) => paths.filter((p) => matchWildcard(pattern, p, false)).sort(),
    ...extra,
  });
}
const user = (text: string) => ({ [`${HOME}/.ssh/config`]: text });
const errors = (r: ResolvedSshHost) => r.diagnostics.filter((d) => d.severity === 'error');
const warnings = (r: ResolvedSshHost) => r.diagnostics.filter((d) => d.severity === 'warning');

describe('parseSshConfig', () => {
  it('reads keywords in any case, separated by spaces or one =, with quoted arguments and comments', () => {
    const { directives, diagnostics } = parseSshConfig(
      [
        '# comment',
        'Host lab "two words"',
        '  hostname=10.0.0.5',
        '\tPort = 2222  # trailing comment',
        '  IdentityFile "~/.ssh/my key"',
        "  User 'o\\'ps'",
        'Match host *.lab !user root',
      ].join('\n'),
      'cfg',
    );
    expect(diagnostics).toEqual([]);
    expect(directives).toEqual([
      { kind: 'host', patterns: ['lab', 'two words'], file: 'cfg', line: 2 },
      { kind: 'option', keyword: 'hostname', name: 'hostname', args: ['10.0.0.5'], file: 'cfg', line: 3 },
      { kind: 'option', keyword: 'port', name: 'Port', args: ['2222'], file: 'cfg', line: 4 },
      {
        kind: 'option',
        keyword: 'identityfile',
        name: 'IdentityFile',
        args: ['~/.ssh/my key'],
        file: 'cfg',
        line: 5,
      },
      { kind: 'option', keyword: 'user', name: 'User', args: ["o'ps"], file: 'cfg', line: 6 },
      {
        kind: 'match',
        criteria: [
          { name: 'host', negated: false, value: '*.lab' },
          { name: 'user', negated: true, value: 'root' },
        ],
        file: 'cfg',
        line: 7,
      },
    ]);
  });

  it('names the file and line of each line it cannot use, and what was expected', () => {
    const cases: [string, string][] = [
      ['Port 0', 'Port must be a whole number from 1 to 65535, but it is "0".'],
      ['Port 22 23', 'Port takes one value, but this line gives 2.'],
      ['HostName', 'HostName needs a value.'],
      [
        'HostName %x.lab',
        'HostName %x.lab cannot be used: %x is not a token HostName accepts (expected one of %h %%).',
      ],
      ['IdentityFile ~/.ssh/%q', 'IdentityFile ~/.ssh/%q cannot be used: %q is not a token it accepts'],
      [
        'StrictHostKeyChecking maybe',
        'StrictHostKeyChecking must be one of yes, true, ask, accept-new, no, false, off',
      ],
      ['IdentitiesOnly sometimes', 'IdentitiesOnly must be one of yes, true, no, false'],
      [
        'ProxyJump bastion:99999',
        'ProxyJump cannot be used: the port of "bastion:99999" is not from 1 to 65535.',
      ],
      ['ProxyJump @bastion', 'ProxyJump cannot be used: "@bastion" has an empty or malformed user.'],
      ['ConnectTimeout soon', 'ConnectTimeout must be a number of seconds or none'],
      ['User "unclosed', 'User cannot be read: the quote " is not closed.'],
      ['Host', 'Host needs at least one pattern.'],
      ['Match hots lab', 'Match cannot be read: "hots" is not a criterion (did you mean host?).'],
      ['Match host', 'Match cannot be read: host needs a value.'],
      ['Match all host x', 'Match cannot be read: all cannot be combined with other criteria.'],
      ['Include', 'Include needs at least one file.'],
      ['=value', 'This line has no keyword.'],
    ];
    for (const [line, message] of cases) {
      const { directives, diagnostics } = parseSshConfig(`# first\n${line}\n`, '/home/ops/.ssh/config');
      expect(directives, line).toEqual([]);
      expect(diagnostics, line).toHaveLength(1);
      expect(diagnostics[0], line).toMatchObject({
        severity: 'error',
        file: '/home/ops/.ssh/config',
        line: 2,
      });
      expect(diagnostics[0]?.message, line).toContain(message);
      expect(diagnostics[0]?.code, line).toMatch(/^image\/ssh-config\//);
    }
  });

  it('yields directives and diagnostics for any text, never an exception', () => {
    const words = [
      'Host',
      'Match',
      'Include',
      'Port',
      'ProxyJump',
      '=',
      '"',
      "'",
      '\\',
      '#',
      '%h',
      '*',
      '!',
      ',',
      '@',
      ':',
      '\n',
      ' ',
      'x',
    ];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.array(fc.constantFrom(...words)).map((w) => w.join('')),
        ),
        (text) => {
          const { directives, diagnostics } = parseSshConfig(text, 'f');
          for (const d of [...directives, ...diagnostics]) expect(d.line).toBeGreaterThan(0);
        },
      ),
    );
  });
});

describe('parseProxyJump', () => {
  it('reads hops with users, ports, URIs and bracketed IPv6 addresses', () => {
    expect(parseProxyJump('bastion')).toEqual([{ host: 'bastion' }]);
    expect(parseProxyJump('ops@bastion:2222,ssh://root@[fe80::1]:22,inner')).toEqual([
      { user: 'ops', host: 'bastion', port: 2222 },
      { user: 'root', host: 'fe80::1', port: 22 },
      { host: 'inner' },
    ]);
    expect(parseProxyJump('None')).toBe('none');
  });

  it('says why a hop cannot be used', () => {
    expect(parseProxyJump('a,,b')).toEqual({ error: '"" names no host' });
    expect(parseProxyJump('fe80::1')).toEqual({ error: 'put the IPv6 address of "fe80::1" in brackets' });
    expect(parseProxyJump('host:')).toEqual({ error: 'the port of "host:" is not from 1 to 65535' });
  });
});

describe('resolveSshConfig', () => {
  const LAB = [
    'Host bastion',
    '  HostName 10.0.0.2',
    '  User jump',
    'Host target target-*',
    '  HostName %h.lab.example',
    '  ProxyJump bastion',
    '  Port 2222',
    'Host !target-9 target-?',
    '  User special',
    'Host *',
    '  User ops',
    '  Port 22',
    '  IdentityFile ~/.ssh/id_%r',
    '  IdentityFile ~/.ssh/id_shared',
    '  StrictHostKeyChecking accept-new',
    '',
  ].join('\n');

  it('applies every matching Host block in order, the first value of each option winning', () => {
    const r = resolveWith(user(LAB), 'target');
    expect(r).toMatchObject({
      host: 'target',
      hostName: 'target.lab.example',
      user: 'ops',
      port: 2222,
      strictHostKeyChecking: 'accept-new',
      proxyJump: { value: [{ host: 'bastion' }], line: 6 },
    });
    expect(r.identityFiles.map((f) => [f.value, f.line])).toEqual([
      ['~/.ssh/id_%r', 13],
      ['~/.ssh/id_shared', 14],
    ]);
    expect(r.diagnostics).toEqual([]);
    expect(resolveWith(user(LAB), 'bastion')).toMatchObject({ hostName: '10.0.0.2', user: 'jump', port: 22 });
  });

  it('matches several patterns per Host line, with * ? and ! negation', () => {
    expect(resolveWith(user(LAB), 'target-1').user).toBe('special');
    expect(resolveWith(user(LAB), 'target-9').user).toBe('ops');
    expect(resolveWith(user(LAB), 'target-10').user).toBe('ops');
    expect(resolveWith(user(LAB), 'TARGET-1').hostName).toBe('TARGET-1.lab.example');
    expect(resolveWith(user(LAB), 'elsewhere')).toMatchObject({ hostName: 'elsewhere', port: 22 });
  });

  it('lets values given beforehand win, as ssh -l and -p do', () => {
    const r = resolveWith(user(LAB), 'target', { preset: { user: 'root', port: 22 } });
    expect(r).toMatchObject({ user: 'root', port: 22 });
  });

  it('reads the user config before the system one', () => {
    const r = resolveWith(
      {
        ...user('Host *\n  Port 2200\n'),
        '/etc/ssh/ssh_config': 'Host *\n  Port 22\n  User sys\n  HashKnownHosts yes\n',
      },
      'x',
    );
    expect(r).toMatchObject({ port: 2200, user: 'sys', hashKnownHosts: true });
  });

  it('applies Match blocks for all, host (after HostName), originalhost, user and localuser', () => {
    const config = [
      'Host short',
      '  HostName long.example',
      'Match host long.example',
      '  Port 1001',
      'Match originalhost short user ops',
      '  User ops',
      '  IdentityFile a',
      'Match !localuser ops',
      '  IdentityFile never',
      'Match localuser ops',
      '  IdentityFile b',
      'Match all',
      '  IdentityFile c',
    ].join('\n');
    const r = resolveWith(user(config), 'short');
    expect(r.port).toBe(1001);
    expect(r.user).toBe('ops');
    expect(r.identityFiles.map((f) => f.value)).toEqual(['a', 'b', 'c']);
  });

  it('takes Match blocks with criteria it cannot evaluate as not applying, with a warning', () => {
    const r = resolveWith(user('Match exec "test -f /x"\n  Port 1\nMatch canonical\n  Port 2\n'), 'h');
    expect(r.port).toBeUndefined();
    expect(warnings(r).map((d) => [d.line, d.code, d.message])).toEqual([
      [
        1,
        'image/ssh-config/unsupported',
        'Match exec is not supported here, so this Match block is taken as not applying.',
      ],
      [
        3,
        'image/ssh-config/unsupported',
        'Match canonical is not supported here, so this Match block is taken as not applying.',
      ],
    ]);
  });

  it('lets ProxyJump and ProxyCommand compete, the first one and none included', () => {
    expect(resolveWith(user('ProxyCommand nc %h %p\nProxyJump b\n'), 'h')).toMatchObject({
      proxyCommand: { value: 'nc %h %p', line: 1 },
    });
    expect(resolveWith(user('ProxyJump none\nProxyJump b\n'), 'h').proxyJump?.value).toBe('none');
    const off = resolveWith(user('ProxyCommand none\nProxyJump b\n'), 'h');
    expect(off.proxyJump).toBeUndefined();
    expect(off.proxyCommand).toBeUndefined();
  });

  it('reads Includes in place, relative to ~/.ssh, with globs, and conditional inside a Host block', () => {
    const files = {
      ...user('Include conf.d/*.conf\nHost lab\n  Include lab.conf\nHost *\n  User fallback\n'),
      [`${HOME}/.ssh/conf.d/10-a.conf`]: 'Host a\n  Port 1010\n',
      [`${HOME}/.ssh/conf.d/20-b.conf`]: 'Host *\n  IdentityFile from-b\n',
      [`${HOME}/.ssh/conf.d/ignored.txt`]: 'Port 1\n',
      [`${HOME}/.ssh/lab.conf`]: 'User labuser\nHost *\n  IdentityFile from-lab\n',
    };
    expect(resolveWith(files, 'a')).toMatchObject({ port: 1010, user: 'fallback' });
    expect(resolveWith(files, 'a').identityFiles.map((f) => f.value)).toEqual(['from-b']);
    const lab = resolveWith(files, 'lab');
    expect(lab.user).toBe('labuser');
    // A Host line inside the included file cannot switch on what the including block left off.
    expect(lab.identityFiles.map((f) => f.value)).toEqual(['from-b', 'from-lab']);
    expect(resolveWith(files, 'other').identityFiles.map((f) => f.value)).toEqual(['from-b']);
  });

  it('stops Includes that nest too deep, saying where', () => {
    const r = resolveWith(user('Include config\n'), 'h');
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0]).toMatchObject({ code: 'image/ssh-config/include', line: 1 });
    expect(errors(r)[0]?.message).toContain(`deeper than ${MAX_INCLUDE_DEPTH}`);
  });

  it('reports an included file that cannot be read at the Include line', () => {
    const r = resolveWith(user('# x\nInclude /etc/broken\n'), 'h', {
      load: (path) =>
        path === '/etc/broken'
          ? { error: 'permission denied' }
          : path.endsWith('/config')
            ? { text: '# x\nInclude /etc/broken\n' }
            : { missing: true },
    });
    expect(errors(r)).toEqual([
      expect.objectContaining({
        line: 2,
        message: 'The config file /etc/broken cannot be read: permission denied.',
      }),
    ]);
  });

  it('errs on a misspelt keyword it acts on, warns on other unknown ones, and honours IgnoreUnknown', () => {
    const r = resolveWith(
      user('Host x\n  HostNmae a\nUseKeychain yes\nFrobnicate 3\nIgnoreUnknown frob*\nFrobnicate 4\n'),
      'x',
    );
    expect(r.diagnostics.map((d) => [d.severity, d.line, d.message])).toEqual([
      ['error', 2, 'HostNmae is not an ssh_config keyword; did you mean HostName?'],
      ['warning', 4, 'Frobnicate is not an ssh_config keyword this client knows; the line is ignored.'],
    ]);
  });

  it('says which options in effect it cannot honour', () => {
    const r = resolveWith(user('CertificateFile ~/.ssh/id-cert.pub\nForwardAgent yes\n'), 'x');
    expect(warnings(r).map((d) => [d.line, d.message])).toEqual([
      [1, 'CertificateFile is ignored: client certificates are not supported; the plain keys are offered.'],
    ]);
  });

  it('reads the known_hosts options, none included', () => {
    const r = resolveWith(
      user(
        'UserKnownHostsFile ~/.ssh/a ~/.ssh/b\nGlobalKnownHostsFile none\nHostKeyAlias alias\nConnectTimeout 7\n',
      ),
      'x',
    );
    expect(r.userKnownHostsFiles?.value).toEqual(['~/.ssh/a', '~/.ssh/b']);
    expect(r.globalKnownHostsFiles?.value).toEqual(['none']);
    expect(r).toMatchObject({ hostKeyAlias: 'alias', connectTimeout: 7 });
  });

  it('resolves any config text to a value, never an exception or a hang', () => {
    const words = [
      'Host',
      'Match',
      'host',
      'all',
      'Include',
      'config',
      'Port',
      '22',
      'ProxyJump',
      '*',
      '!',
      '%h',
      '"',
      '\n',
      ' ',
      'x',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...words), { maxLength: 60 }).map((w) => w.join(' ')),
        fc.string({ maxLength: 20 }),
        (text, host) => {
          const r = resolveWith(user(text), host);
          expect(r.host).toBe(host);
        },
      ),
    );
  });
});

// ssh_config writes environment variables as ${NAME}: literal text here, not template placeholders.
const variable = (name: string) => ['$', `{${name}}`].join('');

describe('expandSshPath', () => {
  const values = {
    home: '/home/ops',
    localUser: 'ops',
    hostName: 'target.lab',
    host: 'target',
    user: 'root',
    port: 2222,
    localHost: 'build.example.com',
    uid: 1000,
  };

  it('expands ~, environment variables and the % tokens', () => {
    expect(expandSshPath('~/.ssh/id_%r@%h:%p', values)).toBe('/home/ops/.ssh/id_root@target.lab:2222');
    expect(expandSshPath('%d/%u/%n/%k/%L/%l/%i/%%', values)).toBe(
      '/home/ops/ops/target/target/build/build.example.com/1000/%',
    );
    expect(expandSshPath(`${variable('KEYS')}/id`, values, { KEYS: '/keys' })).toBe('/keys/id');
    expect(expandSshPath('%C', values)).toMatch(/^[0-9a-f]{40}$/);
  });

  it('says which variable is not set', () => {
    expect(expandSshPath(`${variable('NOPE')}/id`, values, {})).toEqual({
      error: 'the environment variable NOPE is not set',
    });
  });
});
