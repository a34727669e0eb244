import { invalidResult, unwrapResult, type ValidationResult } from './result.js';

/** A path into a JSON-like document: object keys and array indexes. */
export type PathSegment = string | number;

/** Encodes path segments as an RFC 6901 JSON pointer (`['steps', 2, 'a/b']` → `/steps/2/a~1b`). */
export function toJsonPointer(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    const text = String(segment);
    // Most segments need no escaping: skip the two replacements for them.
    out +=
      text.includes('~') || text.includes('/')
        ? `/${text.replace(/~/g, '~0').replace(/\//g, '~1')}`
        : `/${text}`;
  }
  return out;
}

/**
 * Decodes an RFC 6901 JSON pointer into segments (always strings); `''` is
 * the whole document. Text that is not a pointer (it must be empty or start
 * with `/`, and `~` must be followed by `0` or `1`) fails with code
 * `json-pointer/invalid`.
 */
export function validateJsonPointer(pointer: string): ValidationResult<string[]> {
  if (pointer === '') return { ok: true, value: [], diagnostics: [] };
  if (typeof pointer !== 'string') return notAPointer(String(pointer), 'it must be a string');
  if (!pointer.startsWith('/')) return notAPointer(pointer, 'it must be empty or start with "/"');
  const out: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return notAPointer(pointer, '"~" must be followed by 0 or 1');
    out.push(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return { ok: true, value: out, diagnostics: [] };
}

/** Like {@link validateJsonPointer}, but returns the segments or throws a `ValidationError`. */
export function parseJsonPointer(pointer: string): string[] {
  return unwrapResult(validateJsonPointer(pointer));
}

function notAPointer(pointer: string, expected: string) {
  return invalidResult({
    code: 'json-pointer/invalid',
    message: `${JSON.stringify(pointer)} is not a JSON pointer: ${expected}.`,
    hint: 'write paths as /key/0/other, with ~0 for "~" and ~1 for "/"',
  });
}
