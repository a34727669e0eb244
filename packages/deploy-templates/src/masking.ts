// Step arguments may carry credentials (BMC passwords, tokens). Ironic masks
// them on every response with oslo.utils' rules, which we reproduce here: a
// key whose name contains a sensitive word gets the mask, and string values
// are scrubbed for `key=value`-style secrets. Lists are left as they are,
// exactly like oslo.utils.

/** The replacement Ironic shows for a secret. */
export const SECRET_MASK = '******';

/** Key fragments treated as secrets (oslo.utils' list, plus `chapsecret` from newer releases). */
export const SENSITIVE_KEYS: readonly string[] = [
  'adminpass',
  'admin_pass',
  'password',
  'admin_password',
  'auth_token',
  'new_pass',
  'auth_password',
  'secret_uuid',
  'secret',
  'sys_pswd',
  'token',
  'configdrive',
  'chappassword',
  'encrypted_key',
  'private_key',
  'fernetkey',
  'sslkey',
  'passphrase',
  'cephclusterfsid',
  'octaviaheartbeatkey',
  'rabbitcookie',
  'cephmanilaclientkey',
  'pacemakerremoteauthkey',
  'designaterndckey',
  'cephadminkey',
  'heatauthencryptionkey',
  'cephclientkey',
  'keystonecredential',
  'barbicansimplecryptokek',
  'cephrgwkey',
  'swifthashsuffix',
  'migrationsshkey',
  'cephmdskey',
  'cephmonkey',
  'chapsecret',
];

const TWO_GROUP = [
  String.raw`(%k[0-9]*\s*[=]\s*["'])[^"']*(["'])`,
  String.raw`(%k[0-9]*\s*[=]\s*["])[^"]*(["])`,
  String.raw`(%k[0-9]*\s*[=]\s*['])[^']*(['])`,
  String.raw`(%k[0-9]*\s+["'])[^"']*(["'])`,
  String.raw`([-]{2}%k[0-9]*\s+)[^'^"^=^\s]+([\s]*)`,
  String.raw`(<%k[0-9]*>)[^<]*(</%k[0-9]*>)`,
  String.raw`(["']%k[0-9]*["']\s*:\s*["'])[^"']*(["'])`,
  String.raw`(['"][^"']*%k[0-9]*['"]\s*:\s*u?['"])[^"']*(['"])`,
  String.raw`(['"][^'"]*%k[0-9]*['"]\s*,\s*'--?[A-z]+'\s*,\s*u?['"])[^"']*(['"])`,
  String.raw`(%k[0-9]*\s*--?[A-z]+\s*)\S+(\s*)`,
];
const ONE_GROUP = [String.raw`(%k[0-9]*\s*[=]\s*)[^\s^'"]+`];
const WILDCARD = [String.raw`(['"][^"']*%k[0-9]*['"]\s*:\s*u?['"].*['"])[^"']*(['"])`];

interface KeyPatterns {
  key: string;
  two: RegExp[];
  one: RegExp[];
  wildcard: RegExp[];
}

let compiled: KeyPatterns[] | undefined;

function patterns(): KeyPatterns[] {
  compiled ??= SENSITIVE_KEYS.map((key) => {
    const make = (list: string[]) => list.map((p) => new RegExp(p.replaceAll('%k', key), 'gis'));
    return { key, two: make(TWO_GROUP), one: make(ONE_GROUP), wildcard: make(WILDCARD) };
  });
  return compiled;
}

/** Masks secrets inside a free-form string (`admin_pass=foo` → `admin_pass=******`). */
export function maskSecretsInText(text: string, mask: string = SECRET_MASK): string {
  let out = text;
  for (const p of patterns()) {
    if (!out.toLowerCase().includes(p.key)) continue;
    for (const re of p.two) out = out.replace(re, (_m, a: string, b: string) => `${a}${mask}${b}`);
    for (const re of p.one) out = out.replace(re, (_m, a: string) => `${a}${mask}`);
    for (const re of p.wildcard) out = out.replace(re, (_m, a: string) => a);
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of a step's `args` with secrets masked, the way Ironic shows them:
 * nested objects are masked recursively, a key containing a sensitive word
 * (case-insensitive) gets `******`, other strings are scrubbed with
 * {@link maskSecretsInText}. The input is not modified.
 *
 * @example
 * maskSecrets({ bmc_password: 'x', note: 'token=abc' });
 * // { bmc_password: '******', note: 'token=******' }
 */
export function maskSecrets(
  args: Readonly<Record<string, unknown>>,
  mask: string = SECRET_MASK,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (isPlainObject(v)) {
      out[k] = maskSecrets(v, mask);
      continue;
    }
    const lower = k.toLowerCase();
    if (SENSITIVE_KEYS.some((s) => lower.includes(s))) out[k] = mask;
    else out[k] = typeof v === 'string' ? maskSecretsInText(v, mask) : v;
  }
  return out;
}
