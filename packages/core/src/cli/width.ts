// East Asian wide and fullwidth ranges, and pictographs (emoji), take two terminal columns.
const WIDE =
  /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1faff}\u{20000}-\u{3fffd}]/u;

/** How many terminal columns `text` takes: wide East Asian characters count two. ANSI escapes are not skipped. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += WIDE.test(ch) ? 2 : 1;
  return w;
}

/**
 * `text` cut to at most `columns` terminal columns, ending in `…` when cut;
 * never splits a surrogate pair. Returns `text` unchanged when it fits or
 * when `columns` is not a positive number (a stream that reports no width).
 */
export function truncateToWidth(text: string, columns: number | undefined): string {
  if (columns === undefined || !(columns > 0) || displayWidth(text) <= columns) return text;
  if (columns === 1) return '…';
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = WIDE.test(ch) ? 2 : 1;
    if (used + w > columns - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}
