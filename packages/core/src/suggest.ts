// Edit distances for "did you mean": inputs are compared with many names, so
// the tables are reused rather than allocated, the text both strings share
// at either end is skipped, and only cells near the diagonal are filled.

let rows = new Int32Array(3 * 64);
const FAR = 1 << 20;

/**
 * Fills the distance table of `a[aFrom, aFrom + n)` against
 * `b[bFrom, bFrom + m)`, restricted to cells within `band` of the diagonal
 * (cells outside it are more than `band` apart; `band` must be at least
 * `|n - m|`). Stops with `limit + 1` at the first row whose cells all exceed
 * `limit`; otherwise returns the last cell.
 */
function table(
  a: string,
  aFrom: number,
  n: number,
  b: string,
  bFrom: number,
  m: number,
  limit: number,
  band: number,
): number {
  const w = m + 1;
  if (rows.length < 3 * w) rows = new Int32Array(3 * Math.max(w, rows.length));
  const r = rows;
  let pp = 0;
  let p = w;
  let c = 2 * w;
  const top0 = Math.min(m, band);
  for (let j = 0; j <= top0; j += 1) r[p + j] = j;
  for (let i = 1; i <= n; i += 1) {
    const lo = i > band ? i - band : 0;
    const hi = Math.min(i + band, m);
    const ca = a.charCodeAt(aFrom + i - 1);
    const caPrev = i > 1 ? a.charCodeAt(aFrom + i - 2) : -1;
    let rowMin = FAR;
    let left = FAR;
    let j = lo;
    if (j === 0) {
      r[c] = i;
      rowMin = i;
      left = i;
      j = 1;
    }
    let cbPrev = j > 1 ? b.charCodeAt(bFrom + j - 2) : -1;
    // The row above reaches one column less far right than this one.
    const upTop = i - 1 + band;
    for (; j <= hi; j += 1) {
      const cb = b.charCodeAt(bFrom + j - 1);
      let v = (r[p + j - 1] as number) + (ca === cb ? 0 : 1);
      if (j <= upTop && (r[p + j] as number) + 1 < v) v = (r[p + j] as number) + 1;
      if (left + 1 < v) v = left + 1;
      if (ca === cbPrev && caPrev === cb && (r[pp + j - 2] as number) + 1 < v)
        v = (r[pp + j - 2] as number) + 1;
      r[c + j] = v;
      if (v < rowMin) rowMin = v;
      left = v;
      cbPrev = cb;
    }
    if (rowMin > limit) return limit + 1;
    const t = pp;
    pp = p;
    p = c;
    c = t;
  }
  return r[p + m] as number;
}

/**
 * Optimal-string-alignment distance between `a` (or its first `length`
 * characters) and `b` when it is at most `limit`, else `limit + 1`.
 */
export function boundedEditDistance(a: string, b: string, limit: number, length = a.length): number {
  let aEnd = length;
  let bEnd = b.length;
  let from = 0;
  // Text shared at either end costs nothing.
  while (from < aEnd && from < bEnd && a.charCodeAt(from) === b.charCodeAt(from)) from += 1;
  while (aEnd > from && bEnd > from && a.charCodeAt(aEnd - 1) === b.charCodeAt(bEnd - 1)) {
    aEnd -= 1;
    bEnd -= 1;
  }
  const n = aEnd - from;
  const m = bEnd - from;
  if (Math.abs(n - m) > limit) return limit + 1;
  if (!n || !m) return n + m;
  // Within the limit, every cell on a best path lies within `limit` of the diagonal.
  const d = table(a, from, n, b, from, m, limit, Math.min(limit, Math.max(n, m)));
  return d <= limit ? d : limit + 1;
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions)
 * between `a` and `b`. With a `limit`, a number above it as soon as the
 * distance is known to exceed it (`limit + 1`, or the distance itself when
 * no row of the table went past the limit).
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (!a.length || !b.length) return a.length + b.length;
  const d = boundedEditDistance(a, b, limit);
  if (d <= limit) return d;
  // Past the limit the answer depends on the whole table.
  return table(a, 0, a.length, b, 0, b.length, limit, Math.max(a.length, b.length));
}

/** Options for {@link suggest}. */
export interface SuggestOptions {
  /** Largest distance still suggested; default grows with the length of the input (1 per 4 characters, at least 1, at most 4). */
  maxDistance?: number;
  /** How many suggestions to return at most (default 3). */
  limit?: number;
}

/** The default distance budget for a word of this length. */
export function defaultMaxDistance(input: string): number {
  return Math.min(4, Math.max(1, Math.floor(input.length / 4)));
}

/**
 * "Did you mean" candidates for a mistyped word, closest first (ties in
 * candidate order). A candidate equal to the input ignoring case always
 * qualifies. Candidates whose length alone rules them out cost nothing.
 *
 * @example
 * suggest('hw:cpu_polcy', ['hw:cpu_policy', 'hw:numa_nodes']); // ['hw:cpu_policy']
 */
export function suggest(input: string, candidates: Iterable<string>, options: SuggestOptions = {}): string[] {
  const max = options.maxDistance ?? defaultMaxDistance(input);
  const limit = options.limit ?? 3;
  const lower = input.toLowerCase();
  // Few candidates qualify: keep them sorted by distance as they come.
  const names: string[] = [];
  const distances: number[] = [];
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const d = candidate.toLowerCase() === lower ? 0 : boundedEditDistance(input, candidate, max);
    if (d > max) continue;
    let at = names.length;
    while (at > 0 && (distances[at - 1] as number) > d) at -= 1;
    names.splice(at, 0, candidate);
    distances.splice(at, 0, d);
  }
  const out: string[] = [];
  for (const name of names) {
    if (out.length >= limit) break;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/** Formats suggestions as a hint sentence, or `undefined` when there are none. */
export function didYouMean(suggestions: readonly string[]): string | undefined {
  if (!suggestions.length) return undefined;
  if (suggestions.length === 1) return `Did you mean ${suggestions[0]}?`;
  return `Did you mean ${suggestions.slice(0, -1).join(', ')} or ${suggestions[suggestions.length - 1]}?`;
}
