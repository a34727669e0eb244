// Ironic renders bodies with Python's json.dumps defaults: ", " and ": "
// separators and non-ASCII characters escaped. Producing the same bytes lets
// conformance tests compare bodies exactly, and costs nothing for clients.

const PLAIN = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

function escapeString(text: string): string {
  if (PLAIN.test(text)) return `"${text}"`;
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const ch = text[i] as string;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** `json.dumps(value)` as Python writes it (default separators, `ensure_ascii`). */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'string') return escapeString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${escapeString(k)}: ${pythonJson(v)}`).join(', ')}}`;
  }
  return 'null';
}
