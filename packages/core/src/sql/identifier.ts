/** A PostgreSQL identifier in double quotes, with its own double quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
