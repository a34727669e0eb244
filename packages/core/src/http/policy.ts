// Policy for APIs served with roles from trusted headers. Each service keeps
// its own table of rules (rule name → check string, written in the policy
// language OpenStack services use in their `policy.yaml`); this file reads
// the headers an authenticating proxy sets and evaluates those tables, so the
// three services that need it decide the same way.
import { SpecError } from '../errors.js';

/** Who is calling, as an authenticating proxy (keystonemiddleware) describes a token. */
export interface RequestCredentials {
  /** Role names (`admin`, `member`, `reader`, `service`…), compared without regard to case. */
  roles: readonly string[];
  /** `all` for a system-scoped token. */
  systemScope?: string;
  /** Project of a project-scoped token. */
  projectId?: string;
  /** Project name (Ironic's legacy rules and its `service` project look at it). */
  projectName?: string;
  /** Domain of the token's project. */
  projectDomainId?: string;
  /** The user. */
  userId?: string;
}

/**
 * Credentials from the headers an authenticating proxy sets, as
 * keystonemiddleware names them: `X-Roles` (comma separated; listed as
 * given, so send implied roles too, as Keystone does: `admin,member,reader`),
 * `OpenStack-System-Scope`, `X-Project-Id`, `X-Project-Name`,
 * `X-Project-Domain-Id` and `X-User-Id`. Only trust these behind a proxy that
 * strips them from client requests.
 *
 * @example
 * credentialsFromHeaders(new Headers({ 'X-Roles': 'admin, reader', 'OpenStack-System-Scope': 'all' }));
 * // { roles: ['admin', 'reader'], systemScope: 'all' }
 */
export function credentialsFromHeaders(headers: Headers): RequestCredentials {
  const roles = (headers.get('x-roles') ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const out: Record<string, unknown> = { roles };
  const fields: [Exclude<keyof RequestCredentials, 'roles'>, string][] = [
    ['systemScope', 'openstack-system-scope'],
    ['projectId', 'x-project-id'],
    ['projectName', 'x-project-name'],
    ['projectDomainId', 'x-project-domain-id'],
    ['userId', 'x-user-id'],
  ];
  for (const [key, header] of fields) {
    const value = headers.get(header);
    if (value) out[key] = value;
  }
  return out as unknown as RequestCredentials;
}

/**
 * A rule's default as a service ships it: its check string and, for rules
 * whose default changed, the deprecated check still accepted alongside it
 * unless new defaults are enforced.
 */
export interface PolicyRuleDefault {
  check: string;
  deprecated?: string;
}

/** A service's rules: name → check string, or check and deprecated check. */
export type PolicyRuleTable = Readonly<Record<string, string | PolicyRuleDefault>>;

/**
 * What a rule is checked against: values for `%(name)s` in check strings
 * (`null` stands for Python's `None`, which a check compares as the text
 * `None`).
 */
export type PolicyTarget = Readonly<Record<string, string | null>>;

/** Options for {@link createPolicyEnforcer}. */
export interface PolicyEnforcerOptions {
  /**
   * Also accept each rule's deprecated check, as a service does while
   * `[oslo_policy] enforce_new_defaults` is false. Default false: the new
   * defaults only.
   */
  legacy?: boolean;
}

/** Decides a rule for credentials; see {@link createPolicyEnforcer}. */
export interface PolicyEnforcer {
  (rule: string, credentials: RequestCredentials, target?: PolicyTarget): boolean;
  /** The rules the table defines. */
  readonly rules: readonly string[];
}

type Check =
  | { kind: 'const'; value: boolean }
  | { kind: 'and' | 'or'; items: Check[] }
  | { kind: 'not'; item: Check }
  | { kind: 'rule'; name: string }
  | { kind: 'role'; match: string }
  | { kind: 'field'; field: keyof RequestCredentials; match: string };

// The credential names check strings may compare, and where each lives in RequestCredentials.
const FIELDS: Readonly<Record<string, keyof RequestCredentials>> = {
  system_scope: 'systemScope',
  project_id: 'projectId',
  project_name: 'projectName',
  project_domain_id: 'projectDomainId',
  user_id: 'userId',
};

function badCheck(rule: string, text: string, why: string): SpecError {
  return new SpecError(`The check of policy rule ${rule} (${JSON.stringify(text)}) ${why}.`, {
    code: 'policy/bad-check',
  });
}

function tokenize(text: string): string[] {
  const out: string[] = [];
  for (let word of text.split(/\s+/).filter(Boolean)) {
    while (word.startsWith('(')) {
      out.push('(');
      word = word.slice(1);
    }
    let closing = 0;
    while (word.endsWith(')')) {
      closing += 1;
      word = word.slice(0, -1);
    }
    if (word) out.push(word);
    for (let i = 0; i < closing; i += 1) out.push(')');
  }
  return out;
}

/**
 * Parses the policy language: `@` (always), `!` (never), `kind:match`
 * checks, `not`, `and` (binding tighter than `or`), `or` and parentheses.
 */
function parseCheck(rule: string, text: string): Check {
  const tokens = tokenize(text);
  if (tokens.length === 0) return { kind: 'const', value: true };
  let at = 0;
  const peek = () => tokens[at]?.toLowerCase();
  const orExpr = (): Check => {
    const items = [andExpr()];
    while (peek() === 'or') {
      at += 1;
      items.push(andExpr());
    }
    return items.length === 1 ? (items[0] as Check) : { kind: 'or', items };
  };
  const andExpr = (): Check => {
    const items = [unary()];
    while (peek() === 'and') {
      at += 1;
      items.push(unary());
    }
    return items.length === 1 ? (items[0] as Check) : { kind: 'and', items };
  };
  const unary = (): Check => {
    const token = tokens[at];
    if (token === undefined) throw badCheck(rule, text, 'ends where a check was expected');
    at += 1;
    const lower = token.toLowerCase();
    if (lower === 'not') return { kind: 'not', item: unary() };
    if (token === '(') {
      const inner = orExpr();
      if (tokens[at] !== ')') throw badCheck(rule, text, 'has an unclosed parenthesis');
      at += 1;
      return inner;
    }
    if (token === '@') return { kind: 'const', value: true };
    if (token === '!') return { kind: 'const', value: false };
    const colon = token.indexOf(':');
    if (colon <= 0 || lower === 'and' || lower === 'or' || token === ')') {
      throw badCheck(rule, text, `has ${JSON.stringify(token)} where a check was expected`);
    }
    const kind = token.slice(0, colon);
    const match = token.slice(colon + 1);
    if (kind === 'rule') return { kind: 'rule', name: match };
    if (kind === 'role') return { kind: 'role', match };
    const field = FIELDS[kind];
    if (!field) throw badCheck(rule, text, `compares ${kind}, which credentials do not carry`);
    return { kind: 'field', field, match };
  };
  const check = orExpr();
  if (at !== tokens.length) {
    throw badCheck(rule, text, `has ${JSON.stringify(tokens[at])} after a complete check`);
  }
  return check;
}

/** `%(name)s` filled from the target; `undefined` when the target lacks a name (the check then fails). */
function fill(match: string, target: PolicyTarget): string | undefined {
  let missing = false;
  const out = match.replace(/%\(([^)]+)\)s/g, (_m, name: string) => {
    if (!Object.hasOwn(target, name)) {
      missing = true;
      return '';
    }
    return target[name] ?? 'None';
  });
  return missing ? undefined : out;
}

/**
 * Compiles a service's rule table into one function that decides a rule for
 * credentials, with the semantics of oslo.policy's checks: `role:x` holds
 * when the credentials list role `x` (any case); `system_scope:all`,
 * `project_id:%(project_id)s`, `project_name:…`, `project_domain_id:…` and
 * `user_id:…` compare the credential as text with the match, after
 * `%(name)s` is filled from the target (an unset credential reads `None`;
 * a name the target lacks fails the check); `rule:name` evaluates another
 * rule of the table. With `legacy`, a rule's deprecated check is accepted
 * as an alternative.
 *
 * Throws `SpecError` with code `policy/bad-check` for a check string it
 * cannot read, a reference to a rule the table lacks, or rules that refer
 * to each other in a loop; and, when called, `policy/unknown-rule` for a
 * rule the table does not define.
 *
 * @example
 * const enforce = createPolicyEnforcer({ 'svc:write': 'role:admin and system_scope:all' });
 * enforce('svc:write', { roles: ['admin'], systemScope: 'all' }); // true
 * enforce('svc:write', { roles: ['admin'], projectId: 'p1' }); // false
 */
export function createPolicyEnforcer(
  table: PolicyRuleTable,
  options: PolicyEnforcerOptions = {},
): PolicyEnforcer {
  const compiled = new Map<string, Check>();
  for (const [name, entry] of Object.entries(table)) {
    const def = typeof entry === 'string' ? { check: entry } : entry;
    const main = parseCheck(name, def.check);
    compiled.set(
      name,
      options.legacy && def.deprecated !== undefined
        ? { kind: 'or', items: [main, parseCheck(name, def.deprecated)] }
        : main,
    );
  }
  // Every reference must resolve, without loops, before the first request.
  const visit = (name: string, check: Check, path: string[]): void => {
    switch (check.kind) {
      case 'and':
      case 'or':
        for (const item of check.items) visit(name, item, path);
        return;
      case 'not':
        visit(name, check.item, path);
        return;
      case 'rule': {
        const next = compiled.get(check.name);
        if (!next) throw badCheck(name, `rule:${check.name}`, 'refers to a rule the table does not define');
        if (path.includes(check.name)) {
          throw badCheck(name, `rule:${check.name}`, `loops back through ${path.join(' → ')}`);
        }
        visit(check.name, next, [...path, check.name]);
        return;
      }
      default:
        return;
    }
  };
  for (const [name, check] of compiled) visit(name, check, [name]);

  const evaluate = (check: Check, c: RequestCredentials, target: PolicyTarget): boolean => {
    switch (check.kind) {
      case 'const':
        return check.value;
      case 'and':
        return check.items.every((item) => evaluate(item, c, target));
      case 'or':
        return check.items.some((item) => evaluate(item, c, target));
      case 'not':
        return !evaluate(check.item, c, target);
      case 'rule':
        return evaluate(compiled.get(check.name) as Check, c, target);
      case 'role': {
        const role = fill(check.match, target)?.toLowerCase();
        return role !== undefined && c.roles.some((r) => r.toLowerCase() === role);
      }
      case 'field': {
        const expected = fill(check.match, target);
        if (expected === undefined) return false;
        const value = c[check.field];
        return expected === (typeof value === 'string' ? value : 'None');
      }
    }
  };

  const enforce = (rule: string, credentials: RequestCredentials, target: PolicyTarget = {}) => {
    const check = compiled.get(rule);
    if (!check) {
      throw new SpecError(`No policy rule is named ${rule}.`, { code: 'policy/unknown-rule' });
    }
    return evaluate(check, credentials, target);
  };
  return Object.assign(enforce, { rules: [...compiled.keys()] });
}

/**
 * Who is calling a request: credentials to check against the policy, or
 * `'admin'` to skip policy checks altogether.
 */
export type CredentialsHook = (
  request: Request,
) => RequestCredentials | 'admin' | Promise<RequestCredentials | 'admin'>;

/**
 * How an API learns who is calling: `none` (every request is an admin, as
 * with a service's `noauth`), `trusted-headers` (credentials from the
 * headers an authenticating proxy sets, see {@link credentialsFromHeaders}),
 * or a hook of your own.
 */
export type AuthOption = 'none' | 'trusted-headers' | CredentialsHook;

/**
 * The hook an {@link AuthOption} stands for (`undefined` is `none`).
 * Throws `SpecError` (`policy/bad-auth`) for anything else.
 */
export function credentialsHook(auth: AuthOption | undefined): CredentialsHook {
  if (auth === undefined || auth === 'none') return () => 'admin';
  if (auth === 'trusted-headers') return (request) => credentialsFromHeaders(request.headers);
  if (typeof auth === 'function') return auth;
  throw new SpecError(`auth must be 'none', 'trusted-headers' or a function, not ${JSON.stringify(auth)}.`, {
    code: 'policy/bad-auth',
  });
}
