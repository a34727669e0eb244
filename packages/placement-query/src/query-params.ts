/** What the parsers accept as a query: text (with or without `?`), `URLSearchParams`, pairs or a record. */
export type QueryInput =
  | string
  | URLSearchParams
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | QueryParams;

/**
 * An ordered multi-map of query parameters, read the way webob reads a
 * query string: pairs split on `&`, `+` is a space, blank values kept.
 */
export class QueryParams {
  /** Every key and value, in query order. */
  readonly pairs: readonly (readonly [string, string])[];

  constructor(pairs: readonly (readonly [string, string])[]) {
    this.pairs = pairs;
  }

  /** Builds the parameters from any {@link QueryInput}. */
  static from(input: QueryInput): QueryParams {
    if (input instanceof QueryParams) return input;
    if (typeof input === 'string') {
      const text = input.startsWith('?') ? input.slice(1) : input;
      return new QueryParams([...new URLSearchParams(text)]);
    }
    if (input instanceof URLSearchParams) return new QueryParams([...input]);
    if (typeof (input as Iterable<unknown>)[Symbol.iterator] === 'function') {
      return new QueryParams(
        [...(input as Iterable<readonly [string, string]>)].map(([k, v]) => [String(k), String(v)] as const),
      );
    }
    const pairs: [string, string][] = [];
    for (const [k, v] of Object.entries(input as Record<string, string | readonly string[] | undefined>)) {
      if (v === undefined) continue;
      if (typeof v === 'string') pairs.push([k, v]);
      else for (const item of v) pairs.push([k, String(item)]);
    }
    return new QueryParams(pairs);
  }

  /** Every value of `key`, in order. */
  getAll(key: string): string[] {
    const out: string[] = [];
    for (const [k, v] of this.pairs) if (k === key) out.push(v);
    return out;
  }

  /** The last value of `key` (what webob's `req.GET[key]` returns). */
  last(key: string): string | undefined {
    for (let i = this.pairs.length - 1; i >= 0; i -= 1) {
      const pair = this.pairs[i] as readonly [string, string];
      if (pair[0] === key) return pair[1];
    }
    return undefined;
  }

  /** The first value of `key`. */
  first(key: string): string | undefined {
    for (const [k, v] of this.pairs) if (k === key) return v;
    return undefined;
  }

  /** Whether `key` appears at all. */
  has(key: string): boolean {
    return this.pairs.some(([k]) => k === key);
  }

  /** Distinct keys in order of first appearance. */
  keys(): string[] {
    return [...new Set(this.pairs.map(([k]) => k))];
  }
}
