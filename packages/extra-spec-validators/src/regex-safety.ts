// Static detection of regular expressions that make a backtracking engine
// (JavaScript's, like Python's) take time exponential or polynomial in the
// length of the text. Nova runs whatever patterns its validators declare;
// here every definition's patterns are checked once, when it is defined, so
// that a plugin cannot stall validation with one crafted value.
//
// The check works on the pattern's structure. A loop (a repetition that can
// divide text in more than one way) is dangerous when the text it consumes
// could also be consumed another way that the engine would try next:
// - a loop over something that can match nothing: `(a*)*`;
// - two loops that can take turns over the same text, with nothing between
//   them that tells them apart: `(a+)+`, `(\w+\s?)*`, `\d+\d+`, `.*x.*`;
// - a loop over alternatives that can match the same text: `(a|a)*`.
// Whether two loops can take turns is judged from the characters they
// accept: both loops, and everything between them, must be able to match
// text made only of characters both loops accept. This errs on the side of
// refusing (a few harmless patterns are reported), never of accepting.
import { PY_WHITESPACE } from '@stackspec/core';

/** A set of code points: a bitmap of the Basic Multilingual Plane and whether any character above it is in. */
class CharSet {
  constructor(
    readonly bits: Uint32Array = new Uint32Array(2048),
    public astral = false,
  ) {}

  static of(...points: number[]): CharSet {
    const s = new CharSet();
    for (const cp of points) s.add(cp);
    return s;
  }

  add(cp: number): void {
    if (cp > 0xffff) this.astral = true;
    else (this.bits[cp >>> 5] as number) |= 1 << (cp & 31);
  }

  addRange(from: number, to: number): void {
    if (to > 0xffff) this.astral = true;
    for (let cp = from; cp <= Math.min(to, 0xffff); cp += 1) this.add(cp);
  }

  union(other: CharSet): CharSet {
    const bits = new Uint32Array(2048);
    for (let i = 0; i < 2048; i += 1) bits[i] = (this.bits[i] as number) | (other.bits[i] as number);
    return new CharSet(bits, this.astral || other.astral);
  }

  intersect(other: CharSet): CharSet {
    const bits = new Uint32Array(2048);
    for (let i = 0; i < 2048; i += 1) bits[i] = (this.bits[i] as number) & (other.bits[i] as number);
    return new CharSet(bits, this.astral && other.astral);
  }

  /** Everything else; characters above the BMP are assumed to stay possible. */
  complement(): CharSet {
    const bits = new Uint32Array(2048);
    for (let i = 0; i < 2048; i += 1) bits[i] = ~(this.bits[i] as number);
    return new CharSet(bits, true);
  }

  overlaps(other: CharSet): boolean {
    if (this.astral && other.astral) return true;
    for (let i = 0; i < 2048; i += 1) if ((this.bits[i] as number) & (other.bits[i] as number)) return true;
    return false;
  }

  get empty(): boolean {
    return !this.astral && this.bits.every((w) => w === 0);
  }
}

const categories = new Map<string, CharSet>();

/** Python's `\d`, `\w` and `\s` (and their negations) as sets, built once from Node's Unicode tables. */
function category(letter: string): CharSet {
  const hit = categories.get(letter);
  if (hit) return hit;
  let set: CharSet;
  if (letter === 'd' || letter === 'w' || letter === 's') {
    const source = letter === 'd' ? '\\p{Nd}' : letter === 'w' ? '[\\p{L}\\p{N}_]' : `[${PY_WHITESPACE}]`;
    set = new CharSet();
    for (const m of bmp().matchAll(new RegExp(source, 'gu'))) set.add(m[0].charCodeAt(0));
    set.astral = letter !== 's';
  } else set = category(letter.toLowerCase()).complement();
  categories.set(letter, set);
  return set;
}

let bmpText: string | undefined;
function bmp(): string {
  if (!bmpText) {
    const codes: number[] = [];
    for (let c = 0; c < 0x10000; c += 1) if (c < 0xd800 || c > 0xdfff) codes.push(c);
    let out = '';
    for (let i = 0; i < codes.length; i += 4096) out += String.fromCharCode(...codes.slice(i, i + 4096));
    bmpText = out;
  }
  return bmpText;
}

const ANY_BUT_NEWLINE = CharSet.of(0x0a).complement();

type Node =
  | { t: 'set'; set: () => CharSet; from: number; to: number }
  | { t: 'seq'; items: Node[]; from: number; to: number }
  | { t: 'alt'; branches: Node[]; from: number; to: number }
  | { t: 'rep'; body: Node; min: number; max: number; from: number; to: number }
  | { t: 'empty'; from: number; to: number };

/** Reads Python's syntax into a tree; zero-width assertions become `empty`, back references any text. */
function parse(src: string): Node {
  let i = 0;
  const lookarounds: Node[] = [];

  /** The code point of an escape `\c` at `at` (advancing past hex digits), or `undefined` for a class escape. */
  const escapeCode = (c: string, at: number, inClass: boolean): number | undefined => {
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };
    if (c in simple) return simple[c];
    if (inClass && c === 'b') return 8;
    if (c === 'x' || c === 'u' || c === 'U') {
      const len = c === 'x' ? 2 : c === 'u' ? 4 : 8;
      i += len;
      return Number.parseInt(src.slice(at + 2, at + 2 + len), 16);
    }
    return 'dDwWsSAZbB'.includes(c) ? undefined : c.codePointAt(0);
  };

  const parseClass = (): (() => CharSet) => {
    const parts: (() => CharSet)[] = [];
    i += 1;
    const negated = src[i] === '^';
    if (negated) i += 1;
    let first = true;
    let prev: number | undefined;
    while (i < src.length && (src[i] !== ']' || first)) {
      first = false;
      let cp: number | undefined;
      if (src[i] === '\\') {
        const c = src[i + 1] as string;
        const at = i;
        i += 2;
        if ('dDwWsS'.includes(c)) {
          parts.push(() => category(c));
          prev = undefined;
          continue;
        }
        cp = escapeCode(c, at, true);
      } else if (src[i] === '-' && prev !== undefined && src[i + 1] !== ']' && src[i + 1] !== undefined) {
        i += 1;
        let to: number;
        if (src[i] === '\\') {
          const c = src[i + 1] as string;
          const at = i;
          i += 2;
          to = escapeCode(c, at, true) ?? prev;
        } else {
          to = src.codePointAt(i) as number;
          i += to > 0xffff ? 2 : 1;
        }
        const from = prev;
        parts.push(() => {
          const s = new CharSet();
          s.addRange(from, to);
          return s;
        });
        prev = undefined;
        continue;
      } else {
        cp = src.codePointAt(i) as number;
        i += cp > 0xffff ? 2 : 1;
      }
      if (cp !== undefined) {
        const point = cp;
        parts.push(() => CharSet.of(point));
      }
      prev = cp;
    }
    i += 1;
    return memo(() => {
      let s = new CharSet();
      for (const p of parts) s = s.union(p());
      return negated ? s.complement() : s;
    });
  };

  const atom = (): Node | undefined => {
    const from = i;
    const c = src[i] as string;
    if (c === '\\') {
      const next = src[i + 1] as string;
      i += 2;
      if (next >= '1' && next <= '9') {
        if (/[0-9]/.test(src[i] ?? '')) i += 1;
        return anyText(from, i);
      }
      if ('dDwWsS'.includes(next)) return { t: 'set', set: () => category(next), from, to: i };
      if ('AZbB'.includes(next)) return { t: 'empty', from, to: i };
      const cp = escapeCode(next, from, false) as number;
      return { t: 'set', set: () => CharSet.of(cp), from, to: i };
    }
    if (c === '[') {
      const set = parseClass();
      return { t: 'set', set, from, to: i };
    }
    if (c === '(') {
      let zeroWidth = false;
      if (src[i + 1] === '?') {
        const rest = src.slice(i + 2);
        if (rest.startsWith('#')) {
          i = src.indexOf(')', i) + 1;
          return { t: 'empty', from, to: i };
        }
        if (rest.startsWith('P=')) {
          i = src.indexOf(')', i) + 1;
          return anyText(from, i);
        }
        const m = /^(P<[A-Za-z_][A-Za-z0-9_]*>|:|=|!|<=|<!)/.exec(rest);
        i += 2 + (m?.[0].length ?? 0);
        zeroWidth = m !== null && m[0] !== ':' && !m[0].startsWith('P<');
      } else i += 1;
      const body = alternation();
      i += 1; // ')'
      if (zeroWidth) {
        lookarounds.push(body);
        return { t: 'empty', from, to: i };
      }
      return { ...body, from, to: i };
    }
    if (c === '.') {
      i += 1;
      return { t: 'set', set: () => ANY_BUT_NEWLINE, from, to: i };
    }
    if (c === '^' || c === '$') {
      i += 1;
      return { t: 'empty', from, to: i };
    }
    const cp = src.codePointAt(i) as number;
    i += cp > 0xffff ? 2 : 1;
    return { t: 'set', set: () => CharSet.of(cp), from, to: i };
  };

  const quantified = (): Node | undefined => {
    let node = atom();
    if (!node) return undefined;
    for (;;) {
      const c = src[i];
      let min: number;
      let max: number;
      if (c === '*' || c === '+' || c === '?') {
        min = c === '+' ? 1 : 0;
        max = c === '?' ? 1 : Number.POSITIVE_INFINITY;
        i += 1;
      } else if (c === '{') {
        const m = /^\{(\d*)(,(\d*))?\}/.exec(src.slice(i));
        if (!m || (m[1] === '' && m[2] === undefined)) break;
        min = m[1] === '' ? 0 : Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
        i += m[0].length;
      } else break;
      if (src[i] === '?') i += 1;
      node = { t: 'rep', body: node, min, max, from: node.from, to: i };
    }
    return node;
  };

  const sequence = (): Node => {
    const from = i;
    const items: Node[] = [];
    while (i < src.length && src[i] !== '|' && src[i] !== ')') {
      const n = quantified();
      if (n) items.push(n);
    }
    return { t: 'seq', items, from, to: i };
  };

  const alternation = (): Node => {
    const from = i;
    const branches = [sequence()];
    while (src[i] === '|') {
      i += 1;
      branches.push(sequence());
    }
    return branches.length === 1 ? (branches[0] as Node) : { t: 'alt', branches, from, to: i };
  };

  const root = alternation();
  return lookarounds.length ? { t: 'alt', branches: [root, ...lookarounds], from: 0, to: src.length } : root;
}

function anyText(from: number, to: number): Node {
  const any: Node = { t: 'set', set: () => ANY_BUT_NEWLINE.union(CharSet.of(0x0a)), from, to };
  return { t: 'rep', body: any, min: 0, max: Number.POSITIVE_INFINITY, from, to };
}

function memo(fn: () => CharSet): () => CharSet {
  let v: CharSet | undefined;
  return () => {
    v ??= fn();
    return v;
  };
}

/** The one length of text a node matches, or `undefined` when it can match texts of different lengths. */
function fixedLength(n: Node): number | undefined {
  switch (n.t) {
    case 'empty':
      return 0;
    case 'set':
      return 1;
    case 'seq': {
      let total = 0;
      for (const item of n.items) {
        const len = fixedLength(item);
        if (len === undefined) return undefined;
        total += len;
      }
      return total;
    }
    case 'alt': {
      const lens = new Set(n.branches.map(fixedLength));
      return lens.size === 1 ? [...lens][0] : undefined;
    }
    case 'rep': {
      const len = fixedLength(n.body);
      return n.min === n.max && len !== undefined ? len * n.min : undefined;
    }
  }
}

/**
 * A repetition that can divide text in more than one way: its count varies
 * (`a*`, `a?`, `a{1,3}`), or it repeats something of varying length
 * (`(a?){20}`). `(ab){3}` is only a longer literal.
 */
const isLoop = (n: Node): boolean =>
  n.t === 'rep' && (n.max > n.min || (n.max >= 2 && fixedLength(n.body) === undefined));

function nullable(n: Node): boolean {
  switch (n.t) {
    case 'empty':
      return true;
    case 'set':
      return false;
    case 'seq':
      return n.items.every(nullable);
    case 'alt':
      return n.branches.some(nullable);
    case 'rep':
      return n.min === 0 || nullable(n.body);
  }
}

/** Every character a node can consume. */
function charsOf(n: Node): CharSet {
  switch (n.t) {
    case 'empty':
      return new CharSet();
    case 'set':
      return n.set();
    case 'seq':
      return n.items.reduce((s, x) => s.union(charsOf(x)), new CharSet());
    case 'alt':
      return n.branches.reduce((s, x) => s.union(charsOf(x)), new CharSet());
    case 'rep':
      return charsOf(n.body);
  }
}

/** Whether a node can match some text made only of characters in `allowed`. */
function fitsWithin(n: Node, allowed: CharSet): boolean {
  switch (n.t) {
    case 'empty':
      return true;
    case 'set':
      return n.set().overlaps(allowed);
    case 'seq':
      return n.items.every((x) => fitsWithin(x, allowed));
    case 'alt':
      return n.branches.some((x) => fitsWithin(x, allowed));
    case 'rep':
      return n.min === 0 || fitsWithin(n.body, allowed);
  }
}

interface Reach {
  loop: Extract<Node, { t: 'rep' }>;
  /** What stands between the loop and the edge of the node. */
  path: Node[];
}

/** Loops from which the end of a node can be reached, with what lies between. */
function exits(n: Node): Reach[] {
  switch (n.t) {
    case 'seq':
      return n.items.flatMap((item, k) =>
        exits(item).map((r) => ({ loop: r.loop, path: [...r.path, ...n.items.slice(k + 1)] })),
      );
    case 'alt':
      return n.branches.flatMap(exits);
    case 'rep':
      return isLoop(n) ? [{ loop: n, path: [] }, ...exits(n.body)] : exits(n.body);
    default:
      return [];
  }
}

/** Loops that can be reached from the start of a node, with what lies before them. */
function entries(n: Node): Reach[] {
  switch (n.t) {
    case 'seq':
      return n.items.flatMap((item, k) =>
        entries(item).map((r) => ({ loop: r.loop, path: [...n.items.slice(0, k), ...r.path] })),
      );
    case 'alt':
      return n.branches.flatMap(entries);
    case 'rep':
      return isLoop(n) ? [{ loop: n, path: [] }, ...entries(n.body)] : entries(n.body);
    default:
      return [];
  }
}

function childrenOf(n: Node): readonly Node[] {
  if (n.t === 'seq') return n.items;
  if (n.t === 'alt') return n.branches;
  if (n.t === 'rep') return [n.body];
  return [];
}

/** Whether two loops, with `path` between them, can take turns over the same text. */
function takeTurns(a: Reach['loop'], b: Reach['loop'], path: readonly Node[]): boolean {
  const shared = charsOf(a.body).intersect(charsOf(b.body));
  if (shared.empty) return false;
  return fitsWithin(a.body, shared) && fitsWithin(b.body, shared) && path.every((x) => fitsWithin(x, shared));
}

/** What makes a pattern slow on a backtracking engine, found by {@link findBacktrackingRisk}. */
export interface BacktrackingRisk {
  /** What is wrong, as the rest of a sentence naming the pattern. */
  reason: string;
  /** How to rewrite it. */
  hint: string;
  /** `exponential` or `polynomial` in the length of the text. */
  growth: 'exponential' | 'polynomial';
}

function find(n: Node, src: string): BacktrackingRisk | undefined {
  const text = (x: Node) => `'${src.slice(x.from, x.to)}'`;
  if (n.t === 'rep' && isLoop(n) && nullable(n.body)) {
    return {
      reason: `repeats ${text(n.body)}, which can match nothing, in ${text(n)}`,
      hint: 'Make what is repeated consume at least one character, e.g. (a+)* as a*.',
      growth: 'exponential',
    };
  }
  // Counted repetitions put copies of their body one after the other (the
  // unbounded ones are the automaton check's, below).
  if (n.t === 'rep' && n.max >= 2 && n.max !== Number.POSITIVE_INFINITY) {
    for (const out of exits(n.body)) {
      for (const into of entries(n.body)) {
        if (takeTurns(out.loop, into.loop, [...out.path, ...into.path])) {
          return {
            reason: `repeats ${text(n)}, so that ${text(out.loop)} and ${text(into.loop)} of one copy and the next can take turns over the same text`,
            hint: 'Let a character that the inner repetition does not accept separate the copies, e.g. \\w+(,\\w+){0,2} rather than (\\w+){1,3}.',
            growth: 'polynomial',
          };
        }
      }
    }
  }
  if (n.t === 'seq') {
    for (let i = 0; i < n.items.length; i += 1) {
      for (let j = i + 1; j < n.items.length; j += 1) {
        for (const out of exits(n.items[i] as Node)) {
          for (const into of entries(n.items[j] as Node)) {
            if (takeTurns(out.loop, into.loop, [...out.path, ...n.items.slice(i + 1, j), ...into.path])) {
              return {
                reason: `has ${text(out.loop)} and then ${text(into.loop)}, which can take turns over the same text`,
                hint: 'Keep the first repetition from accepting what ends it, e.g. [^@]+@.+ rather than .+@.+, or \\d+ rather than \\d+\\d*.',
                growth: 'polynomial',
              };
            }
          }
        }
      }
    }
  }
  for (const c of childrenOf(n)) {
    const hit = find(c, src);
    if (hit) return hit;
  }
  return undefined;
}

// Exponential backtracking, exactly: the pattern as the automaton a
// backtracking engine walks (one state per character position of the
// pattern, with repetitions of fewer than LARGE_COUNT times written out),
// where going from one position to another along two different routes
// through the pattern's structure (`(a+)+`: round the inner loop, or out
// of it and round the outer one) counts as two moves. A text has
// exponentially many ways to be walked, all of which a failing match tries,
// exactly when two walks can leave a position and meet there again after
// the same text while differing somewhere: a cycle in the product of the
// automaton with itself through a pair (q, q) that also passes through a
// pair (p, p') with p ≠ p', or takes a doubled move.

/** Counts larger than this are read as unbounded (which can only add ways to match). */
const LARGE_COUNT = 8;
/** Positions beyond which a pattern is too large to check (and is refused). */
const MAX_POSITIONS = 2_000;

type Counts = Map<number, number>;

interface Automaton {
  labels: (() => CharSet)[];
  /** Loops that enclose each position, outermost first. */
  loops: Node[][];
  follow: Counts[];
}

interface Part {
  first: Counts;
  last: Counts;
  /** Ways to match nothing (0, 1 or 2 for "more than one"). */
  empty: number;
}

const cap = (n: number) => Math.min(n, 2);

function addScaled(into: Counts, from: Counts, times: number): void {
  if (!times) return;
  for (const [k, v] of from) into.set(k, cap((into.get(k) ?? 0) + v * times));
}

function link(a: Automaton, last: Counts, first: Counts): void {
  for (const [l, x] of last) addScaled(a.follow[l] as Counts, first, x);
}

function build(n: Node, a: Automaton, loops: Node[]): Part {
  switch (n.t) {
    case 'empty':
      return { first: new Map(), last: new Map(), empty: 1 };
    case 'set': {
      if (a.labels.length >= MAX_POSITIONS) throw new RangeError('too many positions');
      const p = a.labels.length;
      a.labels.push(n.set);
      a.loops.push(loops);
      a.follow.push(new Map());
      return { first: new Map([[p, 1]]), last: new Map([[p, 1]]), empty: 0 };
    }
    case 'seq':
      return n.items.reduce<Part>((acc, item) => concat(a, acc, build(item, a, loops)), {
        first: new Map(),
        last: new Map(),
        empty: 1,
      });
    case 'alt': {
      const out: Part = { first: new Map(), last: new Map(), empty: 0 };
      for (const b of n.branches) {
        const part = build(b, a, loops);
        addScaled(out.first, part.first, 1);
        addScaled(out.last, part.last, 1);
        out.empty = cap(out.empty + part.empty);
      }
      return out;
    }
    case 'rep': {
      const inner = isLoop(n) ? [...loops, n] : loops;
      const min = Math.min(n.min, LARGE_COUNT);
      const unbounded = n.max > LARGE_COUNT;
      const max = unbounded ? min : n.max;
      let acc: Part = { first: new Map(), last: new Map(), empty: 1 };
      for (let k = 0; k < min; k += 1) acc = concat(a, acc, build(n.body, a, inner));
      if (unbounded) {
        const body = build(n.body, a, inner);
        link(a, body.last, body.first);
        return concat(a, acc, { first: body.first, last: body.last, empty: 1 });
      }
      // Optional copies nest, (x(x)?)?, so that each count is matched one way.
      let tail: Part = { first: new Map(), last: new Map(), empty: 1 };
      for (let k = max; k > min; k -= 1) {
        const body = build(n.body, a, inner);
        const both = concat(a, body, tail);
        tail = { first: both.first, last: both.last, empty: cap(both.empty + 1) };
      }
      return concat(a, acc, tail);
    }
  }
}

function concat(a: Automaton, x: Part, y: Part): Part {
  link(a, x.last, y.first);
  const first = new Map(x.first);
  addScaled(first, y.first, x.empty);
  const last = new Map(y.last);
  addScaled(last, x.last, y.empty);
  return { first, last, empty: cap(x.empty * y.empty) };
}

/** Strongly connected components of a graph given by its successor function (iterative Tarjan). */
function components(count: number, next: (v: number) => Iterable<number>): number[] {
  const index = new Int32Array(count).fill(-1);
  const low = new Int32Array(count);
  const comp = new Array<number>(count).fill(-1);
  const onStack = new Uint8Array(count);
  const stack: number[] = [];
  let counter = 0;
  let comps = 0;
  for (let root = 0; root < count; root += 1) {
    if (index[root] !== -1) continue;
    const work: [number, Iterator<number>][] = [[root, next(root)[Symbol.iterator]()]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length) {
      const [v, it] = work[work.length - 1] as [number, Iterator<number>];
      const step = it.next();
      if (!step.done) {
        const w = step.value;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, next(w)[Symbol.iterator]()]);
        } else if (onStack[w]) low[v] = Math.min(low[v] as number, index[w] as number);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent[0]] = Math.min(low[parent[0]] as number, low[v] as number);
      if (low[v] === index[v]) {
        for (;;) {
          const w = stack.pop() as number;
          onStack[w] = 0;
          comp[w] = comps;
          if (w === v) break;
        }
        comps += 1;
      }
    }
  }
  return comp;
}

/** The loop whose walks can split text in many ways, or `undefined`. */
function ambiguousLoop(root: Node): Node | undefined {
  const a: Automaton = { labels: [], loops: [], follow: [] };
  build(root, a, []);
  const n = a.labels.length;
  const nfa = components(n, (p) => (a.follow[p] as Counts).keys());
  const overlap = new Map<number, boolean>();
  const overlaps = (p: number, q: number) => {
    const key = p < q ? p * n + q : q * n + p;
    let v = overlap.get(key);
    if (v === undefined) {
      v = (a.labels[p] as () => CharSet)().overlaps((a.labels[q] as () => CharSet)());
      overlap.set(key, v);
    }
    return v;
  };
  const groups = new Map<number, number[]>();
  nfa.forEach((c, p) => {
    const list = groups.get(c);
    if (list) list.push(p);
    else groups.set(c, [p]);
  });
  for (const members of groups.values()) {
    const inside = new Set(members);
    if (!members.some((p) => [...(a.follow[p] as Counts).keys()].some((q) => inside.has(q)))) continue;
    // The product of this component with itself: node i*m+j is the pair (members[i], members[j]).
    const m = members.length;
    const at = new Map(members.map((p, i) => [p, i] as const));
    const succ = (node: number) => {
      const p = members[Math.floor(node / m)] as number;
      const q = members[node % m] as number;
      const out: number[] = [];
      for (const p2 of (a.follow[p] as Counts).keys()) {
        const i = at.get(p2);
        if (i === undefined) continue;
        for (const q2 of (a.follow[q] as Counts).keys()) {
          const j = at.get(q2);
          if (j !== undefined && overlaps(p2, q2)) out.push(i * m + j);
        }
      }
      return out;
    };
    const comp = components(m * m, succ);
    for (let i = 0; i < m; i += 1) {
      const diagonal = comp[i * m + i] as number;
      for (let node = 0; node < m * m; node += 1) {
        if (comp[node] !== diagonal) continue;
        const x = Math.floor(node / m);
        const y = node % m;
        const doubled =
          x === y &&
          succ(node).some(
            (s) =>
              comp[s] === diagonal &&
              (a.follow[members[x] as number] as Counts).get(members[Math.floor(s / m)] as number) === 2 &&
              Math.floor(s / m) === s % m,
          );
        if (x !== y || doubled) {
          const p = members[i] as number;
          return (a.loops[p] as Node[])[0] ?? root;
        }
      }
    }
  }
  return undefined;
}

const cache = new Map<string, BacktrackingRisk | null>();

/**
 * Checks a Python pattern (already known to be valid) for structures that
 * make a backtracking engine slow on some texts: a loop over something
 * that can match nothing, two loops that can take turns over the same text
 * (nested, or one after the other with nothing telling them apart), or a
 * loop over alternatives that can match the same text. Returns what was
 * found, or `undefined`. Cost is small and results are cached per pattern.
 */
export function findBacktrackingRisk(pattern: string): BacktrackingRisk | undefined {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit ?? undefined;
  const root = parse(pattern);
  let risk = find(root, pattern);
  if (!risk) {
    try {
      const loop = ambiguousLoop(root);
      if (loop) {
        risk = {
          reason: `lets '${pattern.slice(loop.from, loop.to)}' match the same text in more than one way, and so a text in exponentially many`,
          hint: 'Make each repetition unambiguous: separate repeated parts with a character they do not accept ([a-z]+(,[a-z]+)* rather than ([a-z]+,?)+), and do not repeat alternatives that can match the same text ((a|b)* rather than (a|\\w)*).',
          growth: 'exponential',
        };
      }
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      risk = {
        reason: `has more than ${MAX_POSITIONS} character positions once its repetitions are written out, too many to prove it safe`,
        hint: 'Use shorter counted repetitions, e.g. [a-z]{1,64} rather than ([a-z]{1,64}){1,64}.',
        growth: 'exponential',
      };
    }
  }
  if (cache.size > 4096) cache.clear();
  cache.set(pattern, risk ?? null);
  return risk;
}
