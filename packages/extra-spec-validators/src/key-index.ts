// A lookup structure for patterned names, layered over the entries of the
// name registry (name-registry.ts). Each patterned name has a literal head
// (text every matching key starts with) and a literal tail (text every
// matching key ends with).
// Keys walk a radix tree of heads from the front and, at each head that
// holds entries, a radix tree of reversed tails from the back; only entries
// whose head and tail both fit are tested with their regular expression. The
// walk costs O(key length) with one map lookup per branching point and
// allocates nothing, however many entries there are.

import type { NameRegistry, RegistryEntry } from './name-registry.js';

interface Node<P> {
  /** Edges by the first character they consume (in walking order). */
  edges: Map<number, Edge<P>> | undefined;
  payload: P | undefined;
}

interface Edge<P> {
  /** Characters consumed, in walking order (reversed for tails). */
  label: string;
  node: Node<P>;
}

interface Item<T> {
  value: T;
  regex: RegExp;
  middle: RegExp | undefined;
  headLength: number;
  tailLength: number;
  span: number;
  rank: number;
  order: number;
}

type TailNode<T> = Node<Item<T>[]>;
type HeadNode<T> = Node<TailNode<T>>;

function newNode<P>(): Node<P> {
  return { edges: undefined, payload: undefined };
}

/** Inserts `text` (already in walking order) and returns its node. */
function insert<P>(root: Node<P>, text: string): Node<P> {
  let node = root;
  let i = 0;
  while (i < text.length) {
    node.edges ??= new Map();
    const c = text.charCodeAt(i);
    const edge = node.edges.get(c);
    if (!edge) {
      const leaf = newNode<P>();
      node.edges.set(c, { label: text.slice(i), node: leaf });
      return leaf;
    }
    let k = 0;
    while (
      k < edge.label.length &&
      i + k < text.length &&
      edge.label.charCodeAt(k) === text.charCodeAt(i + k)
    )
      k += 1;
    if (k < edge.label.length) {
      // Split the edge where the texts part.
      const mid = newNode<P>();
      mid.edges = new Map([[edge.label.charCodeAt(k), { label: edge.label.slice(k), node: edge.node }]]);
      edge.label = edge.label.slice(0, k);
      edge.node = mid;
    }
    node = edge.node;
    i += k;
  }
  return node;
}

const reverse = (s: string) => s.split('').reverse().join('');

/** One patterned name for {@link createKeyIndex}. */
export interface KeyIndexEntry<T> {
  value: T;
  /** Literal text every matching key starts with. */
  head: string;
  /** Literal text every matching key ends with. */
  tail: string;
  /** Matches whole keys. Must not use the `g` or `y` flag. */
  regex: RegExp;
  /**
   * When the name is exactly head, one placeholder, tail: a regex for the
   * placeholder alone, tested on the text between head and tail instead of
   * `regex` on the whole key (entries can then share one compiled regex).
   */
  middle?: RegExp;
  /** Lower wins; ties go to the earlier entry. */
  rank?: number;
}

/** See {@link createKeyIndex}. */
export interface KeyIndex<T> {
  /** The best entry whose regex matches the key, or `undefined`. */
  find(key: string): T | undefined;
  readonly size: number;
}

const better = (a: Item<unknown>, b: Item<unknown>) =>
  a.rank < b.rank || (a.rank === b.rank && a.order < b.order);

/**
 * Indexes patterned names by their literal head and tail. `find` returns the
 * best-ranked entry whose regex matches, testing only the entries whose head
 * and tail the key carries.
 */
export function createKeyIndex<T>(entries: Iterable<KeyIndexEntry<T>>): KeyIndex<T> {
  const root: HeadNode<T> = newNode();
  let size = 0;
  for (const e of entries) {
    const head = insert(root, e.head);
    head.payload ??= newNode();
    const tail = insert(head.payload, reverse(e.tail));
    const item: Item<T> = {
      value: e.value,
      regex: e.regex,
      middle: e.middle,
      headLength: e.head.length,
      tailLength: e.tail.length,
      span: e.head.length + e.tail.length,
      rank: e.rank ?? 0,
      order: size,
    };
    tail.payload ??= [];
    tail.payload.push(item);
    tail.payload.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
    size += 1;
  }

  // Tail nodes met on one walk, deepest last; reused between calls (find is synchronous).
  const path: TailNode<T>[] = [];

  const matches = (item: Item<T>, key: string, n: number): boolean => {
    if (item.span > n) return false;
    if (item.middle) return item.middle.test(key.slice(item.headLength, n - item.tailLength));
    return item.regex.test(key);
  };

  const find = (key: string): T | undefined => {
    let best: Item<T> | undefined;
    const n = key.length;
    let node: HeadNode<T> | undefined = root;
    let i = 0;
    while (node) {
      const tails = node.payload;
      if (tails) {
        let depth = 0;
        let tail: TailNode<T> | undefined = tails;
        let j = n;
        while (tail) {
          path[depth] = tail;
          depth += 1;
          if (j <= i || !tail.edges) break;
          const edge = tail.edges.get(key.charCodeAt(j - 1));
          if (!edge) break;
          const label = edge.label;
          if (label.length > j - i) break;
          let k = 1;
          while (k < label.length && label.charCodeAt(k) === key.charCodeAt(j - 1 - k)) k += 1;
          if (k < label.length) break;
          j -= label.length;
          tail = edge.node;
        }
        // Longest tails first: they are the most specific, and usually win.
        for (let d = depth - 1; d >= 0; d -= 1) {
          const items = (path[d] as TailNode<T>).payload;
          if (!items) continue;
          for (const item of items) {
            if (best && !better(item, best)) break;
            if (matches(item, key, n)) {
              best = item;
              break;
            }
          }
        }
      }
      if (i >= n || !node.edges) break;
      const edge = node.edges.get(key.charCodeAt(i));
      if (!edge) break;
      const label = edge.label;
      if (label.length > n - i) break;
      let k = 1;
      while (k < label.length && label.charCodeAt(k) === key.charCodeAt(i + k)) k += 1;
      if (k < label.length) break;
      i += label.length;
      node = edge.node;
    }
    return best?.value;
  };

  return { find, size };
}

/**
 * What `registry.lookup(key)?.entry.value` answers for a registry whose
 * entries share one layer, through a {@link createKeyIndex} over its
 * patterns: exact plain names first, then the earliest pattern that
 * matches, then a patterned name written literally. Allocates nothing per
 * call. Entries added to the registry later are not seen.
 */
export function createLookup<T>(registry: NameRegistry<T>): (key: string) => T | undefined {
  const exact = new Map<string, RegistryEntry<T>>();
  const patterns: KeyIndexEntry<T>[] = [];
  for (const e of registry.entries()) {
    exact.set(e.name, e);
    const p = e.pattern;
    if (p.isPattern) patterns.push({ value: e.value, head: p.prefix, tail: p.suffix, regex: p.regex });
  }
  const index = createKeyIndex(patterns);
  return (key) => {
    const hit = exact.get(key);
    if (hit && !hit.pattern.isPattern) return hit.value;
    return index.find(key) ?? hit?.value;
  };
}
