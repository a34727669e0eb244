/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions)
 * between `a` and `b`, or `limit + 1` as soon as it is known to exceed `limit`.
 * Runs in O(|a|·|b|) time and O(|b|) memory; the limit makes misses cheap.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prevPrev = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i += 1) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j += 1) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        v = Math.min(v, (prevPrev[j - 2] as number) + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    [prevPrev, prev, cur] = [prev, cur, prevPrev];
  }
  return prev[b.length] as number;
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
  const found: { name: string; distance: number; order: number }[] = [];
  let order = 0;
  for (const candidate of candidates) {
    order += 1;
    if (candidate === input) continue;
    if (candidate.toLowerCase() === lower) {
      found.push({ name: candidate, distance: 0, order });
      continue;
    }
    const d = editDistance(input, candidate, max);
    if (d <= max) found.push({ name: candidate, distance: d, order });
  }
  found.sort((x, y) => x.distance - y.distance || x.order - y.order);
  const out: string[] = [];
  for (const f of found) {
    if (!out.includes(f.name)) out.push(f.name);
    if (out.length >= limit) break;
  }
  return out;
}

/** Formats suggestions as a hint sentence, or `undefined` when there are none. */
export function didYouMean(suggestions: readonly string[]): string | undefined {
  if (!suggestions.length) return undefined;
  if (suggestions.length === 1) return `Did you mean ${suggestions[0]}?`;
  return `Did you mean ${suggestions.slice(0, -1).join(', ')} or ${suggestions[suggestions.length - 1]}?`;
}
