// ssh_config(5) as OpenSSH reads it, for the options that decide where and how
// to connect: Host and Match blocks, HostName, User, Port, IdentityFile,
// ProxyJump, the known_hosts options and Include. The first value obtained
// for an option wins, in file order; IdentityFile adds up. Pure: files come
// through a loader the caller provides, so parsing and resolution are tested
// without a file system, and any text yields entries and located diagnostics,
// never an exception.

import { createHash } from 'node:crypto';
import { createDiagnostic, type Diagnostic, suggest } from '@stackspec/core';
import { matchWildcard } from './ssh-certificate.js';

/** One directive of a config file, with where it was written. */
export type SshConfigDirective =
  | { kind: 'host'; patterns: string[]; file: string; line: number }
  | { kind: 'match'; criteria: SshMatchCriterion[]; file: string; line: number }
  | { kind: 'include'; paths: string[]; file: string; line: number }
  | { kind: 'option'; keyword: string; name: string; args: string[]; file: string; line: number };

/** One criterion of a `Match` line, such as `host *.lab` or `!user root`. */
export interface SshMatchCriterion {
  /** Lower case: `all`, `host`, `originalhost`, `user`, `localuser`, `exec`, … */
  name: string;
  negated: boolean;
  /** The argument; absent for `all`, `canonical` and `final`. */
  value?: string;
}

/** Outcome of {@link parseSshConfig}. */
export interface ParsedSshConfig {
  directives: SshConfigDirective[];
  /** Errors for lines that cannot be used, each with `file` and `line`. */
  diagnostics: Diagnostic[];
}

/** One hop of a `ProxyJump` list: `[user@]host[:port]`. */
export interface SshJumpHop {
  user?: string;
  host: string;
  port?: number;
}

/** A value from a config file, with the line it came from. */
export interface SshConfigValue<T> {
  value: T;
  file: string;
  line: number;
}

/** The settings for one host after reading the config, before any `%` token is expanded. */
export interface ResolvedSshHost {
  /** The host as given (an alias, or a real name). */
  host: string;
  /** `HostName` with `%h` expanded, else `host`. */
  hostName: string;
  user?: string;
  port?: number;
  /** Every `IdentityFile`, in order, unexpanded. */
  identityFiles: SshConfigValue<string>[];
  identitiesOnly?: boolean;
  identityAgent?: SshConfigValue<string>;
  /** The hops, or `none` (which turns a later ProxyJump or ProxyCommand off). */
  proxyJump?: SshConfigValue<SshJumpHop[] | 'none'>;
  proxyCommand?: SshConfigValue<string>;
  /** `ask` (the default of ssh) behaves as `yes` here: nobody is there to ask. */
  strictHostKeyChecking?: 'yes' | 'no' | 'ask' | 'accept-new';
  userKnownHostsFiles?: SshConfigValue<string[]>;
  globalKnownHostsFiles?: SshConfigValue<string[]>;
  hashKnownHosts?: boolean;
  hostKeyAlias?: string;
  /** Seconds. */
  connectTimeout?: number;
  /** Errors (lines that cannot be used) and warnings (what is ignored), each located. */
  diagnostics: Diagnostic[];
}

/** What {@link resolveSshConfig} reads and knows about this machine. */
export interface SshConfigContext {
  /** The host as given on the command line. */
  host: string;
  /** Values given before any file is read (as `ssh -l` and `-p` are): they win. */
  preset?: { user?: string; port?: number };
  /** The config files to read, in order: `user` (relative Includes from ~/.ssh) or `system` (from /etc/ssh). */
  files: readonly { path: string; kind: 'user' | 'system' }[];
  home: string;
  localUser: string;
  /**
   * Reads a file: its text, `missing` when there is none, or why it
   * cannot be read. Its text is parsed with {@link parseSshConfig}.
   */
  load(path: string): { text: string } | { missing: true } | { error: string };
  /** The paths a glob pattern (`*`, `?`) names, sorted; for `Include`. */
  glob(pattern: string): string[];
}

/** How deep Includes may nest, as OpenSSH's limit. */
export const MAX_INCLUDE_DEPTH = 16;
/** How many files one resolution reads at most, so a glob cannot make it read a whole tree. */
export const MAX_CONFIG_FILES = 256;

// Keywords ssh reads, lower case; those not handled below are accepted and ignored, as the
// connection they describe (forwarding, multiplexing, ciphers…) is not this client's to make.
const KNOWN_KEYWORDS = new Set(
  (
    'addkeystoagent addressfamily afstokenpassing batchmode bindaddress bindinterface canonicaldomains ' +
    'canonicalizefallbacklocal canonicalizehostname canonicalizemaxdots canonicalizepermittedcnames ' +
    'casignaturealgorithms certificatefile challengeresponseauthentication channeltimeout checkhostip cipher ' +
    'ciphers clearallforwardings compression compressionlevel connectionattempts connecttimeout controlmaster ' +
    'controlpath controlpersist dsaauthentication dynamicforward enableescapecommandline enablesshkeysign ' +
    'escapechar exitonforwardfailure fallbacktorsh fingerprinthash forkafterauthentication forwardagent ' +
    'forwardx11 forwardx11timeout forwardx11trusted gatewayports globalknownhostsfile globalknownhostsfile2 ' +
    'gssapiauthentication gssapiclientidentity gssapidelegatecredentials gssapikexalgorithms gssapikeyexchange ' +
    'gssapirenewalforcesrekey gssapiserveridentity gssapitrustdns hashknownhosts host hostbasedacceptedalgorithms ' +
    'hostbasedauthentication hostbasedkeytypes hostkeyalgorithms hostkeyalias hostname identitiesonly ' +
    'identityagent identityfile identityfile2 ignoreunknown include ipqos kbdinteractiveauthentication ' +
    'kbdinteractivedevices kerberosauthentication kerberostgtpassing kexalgorithms keepalive knownhostscommand ' +
    'localcommand localforward loglevel logverbose macs match nohostauthenticationforlocalhost ' +
    'numberofpasswordprompts obscurekeystroketiming passwordauthentication permitlocalcommand permitremoteopen ' +
    'pkcs11provider port preferredauthentications protocol proxycommand proxyjump proxyusefdpass ' +
    'pubkeyacceptedalgorithms pubkeyacceptedkeytypes pubkeyauthentication pubkeyauthoptions refuseconnection ' +
    'rekeylimit remotecommand remoteforward requesttty requiredrsasize revokedhostkeys ' +
    'rhostsauthentication rhostsrsaauthentication rsaauthentication securitykeyprovider sendenv ' +
    'serveralivecountmax serveraliveinterval sessiontype setenv skeyauthentication smartcarddevice stdinnull ' +
    'streamlocalbindmask streamlocalbindunlink stricthostkeychecking syslogfacility tag tcpkeepalive ' +
    'tisauthentication tunnel tunneldevice updatehostkeys usekeychain useprivilegedport user userknownhostsfile ' +
    'userknownhostsfile2 useroaming usersh verifyhostkeydns visualhostkey warnweakcrypto xauthlocation'
  ).split(' '),
);

// The keywords this client acts on, as ssh_config(5) spells them; a misspelling of one of these
// is an error, not a warning, since ignoring it would connect somewhere the user did not mean.
const USED_KEYWORDS: Record<string, string> = Object.fromEntries(
  [
    'Host',
    'Match',
    'Include',
    'HostName',
    'User',
    'Port',
    'IdentityFile',
    'IdentitiesOnly',
    'IdentityAgent',
    'ProxyJump',
    'ProxyCommand',
    'StrictHostKeyChecking',
    'UserKnownHostsFile',
    'GlobalKnownHostsFile',
    'HashKnownHosts',
    'HostKeyAlias',
    'ConnectTimeout',
    'IgnoreUnknown',
  ].map((k) => [k.toLowerCase(), k]),
);

// Keywords whose effect this client cannot give; in effect for a host, they are said to be ignored.
const UNSUPPORTED_IN_EFFECT: Record<string, string> = {
  certificatefile: 'client certificates are not supported; the plain keys are offered',
  revokedhostkeys: 'key revocation lists are not read; @revoked lines in known_hosts are',
  knownhostscommand: 'the command is not run; the known_hosts files are read',
  canonicalizehostname: 'host names are not canonicalised',
};

// `%` tokens each keyword accepts (ssh_config(5), TOKENS).
const PATH_TOKENS = 'CdhijkLlnprTu%';
const TOKENS: Record<string, string> = {
  hostname: 'h%',
  identityfile: PATH_TOKENS,
  identityagent: PATH_TOKENS,
  userknownhostsfile: PATH_TOKENS,
  globalknownhostsfile: PATH_TOKENS,
};

const MATCH_CRITERIA = new Set([
  'all',
  'canonical',
  'final',
  'exec',
  'localnetwork',
  'host',
  'originalhost',
  'tagged',
  'user',
  'localuser',
  'version',
  'sessiontype',
  'command',
]);
const MATCH_WITHOUT_VALUE = new Set(['all', 'canonical', 'final']);
const MATCH_SUPPORTED = new Set(['all', 'host', 'originalhost', 'user', 'localuser']);

function problem(
  code: string,
  file: string,
  line: number,
  message: string,
  hint?: string,
  severity: 'error' | 'warning' = 'error',
): Diagnostic {
  return createDiagnostic({ code, severity, message, file, line, ...(hint ? { hint } : {}) });
}

/**
 * Splits the arguments of a line as ssh does: on whitespace, with double or
 * single quotes around an argument that holds spaces, a backslash escaping
 * a quote, backslash or space, and an unquoted `#` at the start of an
 * argument ending the line.
 */
function splitArguments(text: string): string[] | { error: string } {
  const args: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] as string)) i += 1;
    if (i >= text.length) break;
    if (text[i] === '#') break;
    let arg = '';
    let quote: string | undefined;
    for (; i < text.length; i += 1) {
      const c = text[i] as string;
      if (quote) {
        if (c === '\\' && (text[i + 1] === quote || text[i + 1] === '\\')) {
          arg += text[i + 1];
          i += 1;
        } else if (c === quote) quote = undefined;
        else arg += c;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '\\' && i + 1 < text.length && /[\\"' ]/.test(text[i + 1] as string)) {
        arg += text[i + 1];
        i += 1;
      } else if (/\s/.test(c)) break;
      else arg += c;
    }
    if (quote) return { error: `the quote ${quote} is not closed` };
    args.push(arg);
  }
  return args;
}

const YES_NO: Record<string, boolean> = { yes: true, true: true, no: false, false: false };
const STRICT: Record<string, ResolvedSshHost['strictHostKeyChecking']> = {
  yes: 'yes',
  true: 'yes',
  ask: 'ask',
  'accept-new': 'accept-new',
  no: 'no',
  false: 'no',
  off: 'no',
};

/** Checks the `%` tokens of a value against those its keyword accepts; the error as a sentence. */
function tokenProblem(keyword: string, value: string): string | undefined {
  const allowed = TOKENS[keyword];
  if (!allowed) return undefined;
  for (let i = 0; i < value.length; i += 1) {
    if (value[i] !== '%') continue;
    const t = value[i + 1];
    if (t === undefined) return `it ends with a lone %; write %% for a percent sign`;
    if (!allowed.includes(t)) {
      return `%${t} is not a token ${keyword === 'hostname' ? 'HostName' : 'it'} accepts (expected one of ${[...allowed].map((c) => `%${c}`).join(' ')})`;
    }
    i += 1;
  }
  return undefined;
}

/**
 * Parses a `ProxyJump` value: `none`, or hops separated by commas, each
 * `[user@]host[:port]` or `ssh://[user@]host[:port]` (an IPv6 address in
 * brackets). Returns the reason as a phrase when it cannot be used.
 */
export function parseProxyJump(text: string): SshJumpHop[] | 'none' | { error: string } {
  if (text.toLowerCase() === 'none') return 'none';
  const hops: SshJumpHop[] = [];
  for (const raw of text.split(',')) {
    let rest = raw;
    if (rest.startsWith('ssh://')) rest = rest.slice(6).replace(/\/$/, '');
    const at = rest.lastIndexOf('@');
    const user = at >= 0 ? rest.slice(0, at) : undefined;
    rest = at >= 0 ? rest.slice(at + 1) : rest;
    let host = rest;
    let portText: string | undefined;
    const bracket = /^\[([^\]]*)\](?::(.*))?$/.exec(rest);
    if (bracket) {
      host = bracket[1] as string;
      portText = bracket[2];
    } else if (rest.includes(':')) {
      const colon = rest.lastIndexOf(':');
      host = rest.slice(0, colon);
      portText = rest.slice(colon + 1);
      if (host.includes(':')) return { error: `put the IPv6 address of ${JSON.stringify(raw)} in brackets` };
    }
    if (!host || /[\s/@]/.test(host)) return { error: `${JSON.stringify(raw)} names no host` };
    if (user !== undefined && (!user || /[\s@]/.test(user))) {
      return { error: `${JSON.stringify(raw)} has an empty or malformed user` };
    }
    let port: number | undefined;
    if (portText !== undefined) {
      port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
      if (!(port >= 1 && port <= 65535))
        return { error: `the port of ${JSON.stringify(raw)} is not from 1 to 65535` };
    }
    hops.push({ ...(user !== undefined ? { user } : {}), host, ...(port !== undefined ? { port } : {}) });
  }
  return hops;
}

/**
 * Parses ssh_config text into directives. A keyword and its arguments are
 * separated by whitespace or one `=`; keywords are case-insensitive;
 * arguments may be quoted. Lines that cannot be used (an unclosed quote, a
 * missing or malformed argument to an option this client acts on, a `%`
 * token the option does not accept, an unknown `Match` criterion) become
 * errors naming `file` and the line, and are left out. Unknown keywords are
 * kept: whether they matter depends on `IgnoreUnknown`, which
 * {@link resolveSshConfig} applies. Linear in the text; never throws.
 *
 * @example
 * const { directives, diagnostics } = parseSshConfig('Host lab\n  HostName 10.0.0.5\n', '~/.ssh/config');
 */
export function parseSshConfig(text: string, file: string): ParsedSshConfig {
  const directives: SshConfigDirective[] = [];
  const diagnostics: Diagnostic[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const line = i + 1;
    const raw = (lines[i] as string).trim();
    if (!raw || raw.startsWith('#')) continue;
    const head = /^([^\s=]+)\s*(?:=\s*)?(.*)$/s.exec(raw);
    const name = head?.[1] ?? '';
    if (!head || !name) {
      diagnostics.push(
        problem(
          'image/ssh-config/syntax',
          file,
          line,
          'This line has no keyword.',
          'A line reads: Keyword value.',
        ),
      );
      continue;
    }
    const keyword = name.toLowerCase();
    const split = splitArguments(head[2] ?? '');
    if ('error' in split) {
      diagnostics.push(
        problem('image/ssh-config/syntax', file, line, `${name} cannot be read: ${split.error}.`),
      );
      continue;
    }
    const args = split;
    const fail = (message: string, hint?: string) =>
      diagnostics.push(problem('image/ssh-config/bad-value', file, line, message, hint));
    if (keyword === 'host') {
      if (!args.length) fail('Host needs at least one pattern.', 'For example: Host bastion *.lab.example');
      else directives.push({ kind: 'host', patterns: args, file, line });
      continue;
    }
    if (keyword === 'match') {
      const criteria = parseMatch(args);
      if ('error' in criteria)
        fail(`Match cannot be read: ${criteria.error}.`, 'For example: Match host *.lab user ops');
      else directives.push({ kind: 'match', criteria, file, line });
      continue;
    }
    if (keyword === 'include') {
      if (!args.length) fail('Include needs at least one file.', 'For example: Include config.d/*');
      else directives.push({ kind: 'include', paths: args, file, line });
      continue;
    }
    const message = checkOption(keyword, name, args);
    if (message) {
      fail(message.message, message.hint);
      continue;
    }
    directives.push({ kind: 'option', keyword, name, args, file, line });
  }
  return { directives, diagnostics };
}

function parseMatch(args: readonly string[]): SshMatchCriterion[] | { error: string } {
  if (!args.length) return { error: 'it has no criteria' };
  const criteria: SshMatchCriterion[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as string;
    const negated = word.startsWith('!');
    const name = (negated ? word.slice(1) : word).toLowerCase();
    if (!MATCH_CRITERIA.has(name)) {
      const near = suggest(name, [...MATCH_CRITERIA])[0];
      return { error: `${JSON.stringify(word)} is not a criterion${near ? ` (did you mean ${near}?)` : ''}` };
    }
    if (MATCH_WITHOUT_VALUE.has(name)) {
      criteria.push({ name, negated });
      continue;
    }
    const value = args[i + 1];
    if (value === undefined) return { error: `${name} needs a value` };
    criteria.push({ name, negated, value });
    i += 1;
  }
  if (
    criteria.some((c) => c.name === 'all') &&
    criteria.some((c) => !['all', 'canonical', 'final'].includes(c.name))
  ) {
    return { error: 'all cannot be combined with other criteria' };
  }
  return criteria;
}

function checkOption(
  keyword: string,
  name: string,
  args: readonly string[],
): { message: string; hint?: string } | undefined {
  const one = () =>
    args.length === 0
      ? { message: `${name} needs a value.` }
      : args.length > 1
        ? {
            message: `${name} takes one value, but this line gives ${args.length}.`,
            hint: 'Quote a value that holds spaces.',
          }
        : undefined;
  const atLeastOne = () => (args.length === 0 ? { message: `${name} needs a value.` } : undefined);
  const tokens = () => {
    for (const a of args) {
      const t = tokenProblem(keyword, a);
      if (t) return { message: `${name} ${a} cannot be used: ${t}.` };
    }
    return undefined;
  };
  const choice = (table: Record<string, unknown>) =>
    one() ??
    (table[(args[0] as string).toLowerCase()] === undefined
      ? {
          message: `${name} must be one of ${Object.keys(table).join(', ')}, but it is ${JSON.stringify(args[0])}.`,
        }
      : undefined);
  switch (keyword) {
    case 'hostname':
    case 'identityfile':
    case 'identityagent':
      return one() ?? tokens();
    case 'user':
    case 'hostkeyalias':
    case 'ignoreunknown':
      return one();
    case 'userknownhostsfile':
    case 'globalknownhostsfile':
      return atLeastOne() ?? tokens();
    case 'proxycommand':
      return atLeastOne();
    case 'port': {
      const bad = one();
      if (bad) return bad;
      const port = /^\d{1,5}$/.test(args[0] as string) ? Number(args[0]) : Number.NaN;
      return port >= 1 && port <= 65535
        ? undefined
        : { message: `Port must be a whole number from 1 to 65535, but it is ${JSON.stringify(args[0])}.` };
    }
    case 'connecttimeout': {
      const bad = one();
      if (bad) return bad;
      return /^(none|\d{1,6})$/i.test(args[0] as string)
        ? undefined
        : {
            message: `ConnectTimeout must be a number of seconds or none, but it is ${JSON.stringify(args[0])}.`,
          };
    }
    case 'identitiesonly':
    case 'hashknownhosts':
      return choice(YES_NO);
    case 'stricthostkeychecking':
      return choice(STRICT);
    case 'proxyjump': {
      const bad = one();
      if (bad) return bad;
      const hops = parseProxyJump(args[0] as string);
      return typeof hops === 'object' && 'error' in hops
        ? {
            message: `ProxyJump cannot be used: ${hops.error}.`,
            hint: 'ProxyJump takes [user@]host[:port] hops separated by commas, or none.',
          }
        : undefined;
    }
    default:
      return undefined;
  }
}

/** Values for the `%` tokens of paths (ssh_config(5), TOKENS). */
export interface SshTokenValues {
  /** %d: the local home folder. */
  home: string;
  /** %u: the local user. */
  localUser: string;
  /** %h: the remote host name (after HostName). */
  hostName: string;
  /** %n: the host as given. */
  host: string;
  /** %r: the remote user. */
  user: string;
  /** %p: the remote port. */
  port: number;
  /** %l: this machine's host name; %L is its first label. */
  localHost: string;
  /** %i: the local user id. */
  uid?: number;
  /** %k: the HostKeyAlias, else the host as given. */
  hostKeyAlias?: string;
  /** %j: the ProxyJump text, empty without one. */
  jump?: string;
}

/**
 * Expands a path from the config as ssh does: `~` at the start (the local
 * home), `${NAME}` from `env`, and `%` tokens. Returns the reason as a
 * phrase when a variable is not set.
 */
export function expandSshPath(
  text: string,
  values: SshTokenValues,
  env: Readonly<Record<string, string | undefined>> = {},
): string | { error: string } {
  let missing: string | undefined;
  let out = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const v = env[name];
    if (v === undefined) missing ??= name;
    return v ?? '';
  });
  if (missing) return { error: `the environment variable ${missing} is not set` };
  if (out === '~' || out.startsWith('~/')) out = values.home + out.slice(1);
  const map: Record<string, string> = {
    '%': '%',
    d: values.home,
    u: values.localUser,
    h: values.hostName,
    n: values.host,
    r: values.user,
    p: String(values.port),
    l: values.localHost,
    L: values.localHost.split('.')[0] ?? values.localHost,
    i: String(values.uid ?? ''),
    k: values.hostKeyAlias ?? values.host,
    j: values.jump ?? '',
    T: 'NONE',
    C: createHash('sha1')
      .update(`${values.localHost}${values.hostName}${values.port}${values.user}${values.jump ?? ''}`)
      .digest('hex'),
  };
  return out.replace(/%(.)/g, (m, t: string) => map[t] ?? m);
}

interface State {
  resolved: ResolvedSshHost;
  set: Set<string>;
  ignoreUnknown?: string;
  filesRead: number;
}

/**
 * The settings ssh would use for `context.host`: each config file is read
 * in order (Includes in place, up to 16 deep and 256 files in all, as
 * `MAX_INCLUDE_DEPTH` and `MAX_CONFIG_FILES` say), `Host` patterns (`*`, `?`, `!`) are
 * matched against the host as given, `Match` blocks are applied for `all`,
 * `host` (the HostName so far), `originalhost`, `user` and `localuser`
 * (other criteria make the block not apply, with a warning), and the first
 * value obtained for each option wins. A missing file is no error; an
 * unreadable one, a line that cannot be used, or an unknown keyword that
 * looks like a misspelt one this client uses is an error in `diagnostics`;
 * other unknown keywords (not covered by `IgnoreUnknown`) are warnings.
 */
export function resolveSshConfig(context: SshConfigContext): ResolvedSshHost {
  const state: State = {
    resolved: { host: context.host, hostName: context.host, identityFiles: [], diagnostics: [] },
    set: new Set(),
    filesRead: 0,
  };
  const r = state.resolved;
  if (context.preset?.user !== undefined) {
    r.user = context.preset.user;
    state.set.add('user');
  }
  if (context.preset?.port !== undefined) {
    r.port = context.preset.port;
    state.set.add('port');
  }
  for (const f of context.files) readFile(context, state, f.path, f.kind, true, 0, undefined);
  return r;
}

function readFile(
  context: SshConfigContext,
  state: State,
  path: string,
  kind: 'user' | 'system',
  active: boolean,
  depth: number,
  from: { file: string; line: number } | undefined,
): void {
  const r = state.resolved;
  const at = (message: string, code = 'image/ssh-config/include') =>
    r.diagnostics.push(
      from ? problem(code, from.file, from.line, message) : createDiagnostic({ code, message, file: path }),
    );
  if (state.filesRead >= MAX_CONFIG_FILES) {
    at(`More than ${MAX_CONFIG_FILES} config files are included; ${path} and the rest are not read.`);
    return;
  }
  state.filesRead += 1;
  const loaded = context.load(path);
  if ('missing' in loaded) {
    // ssh reads a missing top-level file as empty; a glob that names nothing includes nothing.
    return;
  }
  if ('error' in loaded) {
    at(`The config file ${path} cannot be read: ${loaded.error}.`);
    return;
  }
  const parsed = parseSshConfig(loaded.text, path);
  r.diagnostics.push(...parsed.diagnostics);
  // A file starts as if under `Host *`; an Include inside a block that does not apply never applies.
  const never = !active;
  let on = active;
  for (const d of parsed.directives) {
    if (d.kind === 'host') {
      on = !never && hostMatches(d.patterns, context.host);
      continue;
    }
    if (d.kind === 'match') {
      on = !never && matchApplies(d, context, state);
      continue;
    }
    if (d.kind === 'include') {
      if (depth + 1 > MAX_INCLUDE_DEPTH) {
        r.diagnostics.push(
          problem(
            'image/ssh-config/include',
            d.file,
            d.line,
            `Includes nest deeper than ${MAX_INCLUDE_DEPTH} files here; the rest is not read.`,
            'Look for a file that includes itself.',
          ),
        );
        continue;
      }
      for (const p of d.paths) {
        let target = p === '~' || p.startsWith('~/') ? context.home + p.slice(1) : p;
        if (!target.startsWith('/'))
          target = `${kind === 'user' ? `${context.home}/.ssh` : '/etc/ssh'}/${target}`;
        const paths = /[*?[]/.test(target) ? context.glob(target) : [target];
        for (const included of paths)
          readFile(context, state, included, kind, on, depth + 1, { file: d.file, line: d.line });
      }
      continue;
    }
    applyOption(d, state, on);
  }
}

function hostMatches(patterns: readonly string[], host: string): boolean {
  let matched = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    if (matchWildcard(negated ? pattern.slice(1) : pattern, host)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

// A comma-separated pattern list, where a matching `!pattern` rules the name out.
function listMatches(list: string, name: string): boolean {
  return hostMatches(list.split(','), name);
}

function matchApplies(
  d: Extract<SshConfigDirective, { kind: 'match' }>,
  context: SshConfigContext,
  state: State,
): boolean {
  const r = state.resolved;
  let result = true;
  for (const c of d.criteria) {
    let hit: boolean;
    switch (c.name) {
      case 'all':
        hit = true;
        break;
      case 'host':
        hit = listMatches(c.value ?? '', r.hostName);
        break;
      case 'originalhost':
        hit = listMatches(c.value ?? '', context.host);
        break;
      case 'user':
        hit = listMatches(c.value ?? '', r.user ?? context.localUser);
        break;
      case 'localuser':
        hit = listMatches(c.value ?? '', context.localUser);
        break;
      default:
        r.diagnostics.push(
          problem(
            'image/ssh-config/unsupported',
            d.file,
            d.line,
            `Match ${c.name} is not supported here, so this Match block is taken as not applying.`,
            `Supported criteria: ${[...MATCH_SUPPORTED].join(', ')}.`,
            'warning',
          ),
        );
        return false;
    }
    if (c.negated ? hit : !hit) result = false;
  }
  return result;
}

function applyOption(d: Extract<SshConfigDirective, { kind: 'option' }>, state: State, on: boolean): void {
  const r = state.resolved;
  const { keyword, args, file, line } = d;
  if (!KNOWN_KEYWORDS.has(keyword)) {
    if (state.ignoreUnknown && listMatches(state.ignoreUnknown, keyword)) return;
    const guess = suggest(keyword, Object.keys(USED_KEYWORDS))[0];
    const near = guess ? USED_KEYWORDS[guess] : undefined;
    r.diagnostics.push(
      problem(
        'image/ssh-config/unknown-keyword',
        file,
        line,
        near
          ? `${d.name} is not an ssh_config keyword; did you mean ${near}?`
          : `${d.name} is not an ssh_config keyword this client knows; the line is ignored.`,
        near ? undefined : 'List keywords meant for other tools in IgnoreUnknown.',
        near ? 'error' : 'warning',
      ),
    );
    return;
  }
  if (!on) return;
  const first = (key: string) => {
    if (state.set.has(key)) return false;
    state.set.add(key);
    return true;
  };
  const value = args[0] as string;
  const located = <T>(v: T): SshConfigValue<T> => ({ value: v, file, line });
  switch (keyword) {
    case 'hostname':
      if (first(keyword))
        r.hostName = value.replace(/%([h%])/g, (_m, t: string) => (t === 'h' ? r.host : '%'));
      return;
    case 'user':
      if (first(keyword)) r.user = value;
      return;
    case 'port':
      if (first(keyword)) r.port = Number(value);
      return;
    case 'identityfile':
    case 'identityfile2':
      if (r.identityFiles.length < 100) r.identityFiles.push(located(value));
      return;
    case 'identitiesonly':
      if (first(keyword)) r.identitiesOnly = YES_NO[value.toLowerCase()];
      return;
    case 'identityagent':
      if (first(keyword)) r.identityAgent = located(value);
      return;
    case 'proxyjump':
    case 'proxycommand':
      // The two compete: whichever comes first wins, and `none` of either turns both off.
      if (!first('proxy')) return;
      if (keyword === 'proxyjump') r.proxyJump = located(parseProxyJump(value) as SshJumpHop[] | 'none');
      else if (!(args.length === 1 && value.toLowerCase() === 'none'))
        r.proxyCommand = located(args.join(' '));
      return;
    case 'stricthostkeychecking':
      if (first(keyword)) r.strictHostKeyChecking = STRICT[value.toLowerCase()];
      return;
    case 'userknownhostsfile':
      if (first(keyword)) r.userKnownHostsFiles = located([...args]);
      return;
    case 'globalknownhostsfile':
      if (first(keyword)) r.globalKnownHostsFiles = located([...args]);
      return;
    case 'hashknownhosts':
      if (first(keyword)) r.hashKnownHosts = YES_NO[value.toLowerCase()];
      return;
    case 'hostkeyalias':
      if (first(keyword)) r.hostKeyAlias = value;
      return;
    case 'connecttimeout':
      if (first(keyword) && value.toLowerCase() !== 'none') r.connectTimeout = Number(value);
      return;
    case 'ignoreunknown':
      if (first(keyword)) state.ignoreUnknown = value.toLowerCase();
      return;
    default: {
      const why = UNSUPPORTED_IN_EFFECT[keyword];
      const off = keyword === 'canonicalizehostname' && /^no$/i.test(value ?? '');
      if (why && !off && first(keyword)) {
        r.diagnostics.push(
          problem(
            'image/ssh-config/unsupported',
            file,
            line,
            `${d.name} is ignored: ${why}.`,
            undefined,
            'warning',
          ),
        );
      }
    }
  }
}
