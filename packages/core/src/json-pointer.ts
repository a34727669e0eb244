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
 * Decodes an RFC 6901 JSON pointer into segments (always strings).
 * `''` is the whole document. Returns `undefined` for text that is not a pointer
 * (it must be empty or start with `/`, and `~` must be followed by `0` or `1`).
 */
export function parseJsonPointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const out: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return undefined;
    out.push(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return out;
}
