// "Did you mean" for unknown keys, answered from an index built once per
// registry.
//
// What it answers is fixed by the straightforward scan (`suggestKeysByScan`):
// the key is compared with the names of each namespace close to its own
// (the same, one the key's namespace starts with, or one within two edits),
// each namespace through core's name-registry `suggest`, and the lists are
// merged by position and distance. The index gives the same lists (the
// property tests compare the two on random keys) while comparing far fewer
// strings:
// - namespaces and plain names are first screened by the characters they
//   hold: each edit brings in at most one character the other side lacks;
// - plain names are kept by length, and only lengths within the edit budget
//   are compared;
// - patterned names are grouped by their literal head, compared with the
//   key's head once per group; their literal tails sit reversed in a trie,
//   walked against the reversed key with a banded distance table, so a tail
//   far from the key's end is dropped with every tail ending like it;
// - patterned names are gathered within one edit first, then two, and so
//   on: once a namespace has enough names within `d` edits nothing farther
//   can enter its list, and the close passes are the cheap ones.
import { boundedEditDistance, defaultMaxDistance, editDistance } from '@stackspec/core';
import type { NamePattern } from './name-pattern.js';
import type { NameRegistry } from './name-registry.js';

/** A registry name with what suggestions need of it. */
export interface SuggestableName {
  name: string;
  /** The namespace it is documented under (see `docNamespace`). */
  namespace: string;
  /** Its compiled name (literal text read literally). */
  pattern: NamePattern;
}

interface Plain {
  name: string;
  lower: string;
  order: number;
  /** Character bits of the name (see {@link charBits}). */
  low: number;
  high: number;
}

interface Patterned {
  name: string;
  prefix: string;
  suffix: string;
  regex: RegExp;
  order: number;
}

interface TrieNode {
  /** Character on the edge into this node (reversed tails, lower case). */
  char: number;
  kids: TrieNode[];
  entries: Patterned[];
}

interface HeadGroup {
  /** The literal head, lower case. */
  head: string;
  root: TrieNode;
  /** Longest tail in the group. */
  depth: number;
}

interface Space {
  name: string;
  low: number;
  high: number;
  /** Plain names by length. */
  plains: Plain[][];
  groups: HeadGroup[];
}

interface Scored {
  text: string;
  distance: number;
  order: number;
  /** The distance also holds between the lower-cased texts (a lower-case name). */
  caseless: boolean;
}

const FAR = 1 << 20;

// Characters onto 64 bits (two numbers): letters of either case 0-25,
// digits 26-35, the punctuation names use 36-42, anything else shares the
// rest. Two strings within `d` edits differ by at most `d` set bits either way.
const BIT = new Uint8Array(128);
for (let c = 0; c < 128; c += 1) {
  const lower = c >= 65 && c <= 90 ? c + 32 : c;
  const at = '_:.- {}'.indexOf(String.fromCharCode(c));
  BIT[c] =
    lower >= 97 && lower <= 122
      ? lower - 97
      : c >= 48 && c <= 57
        ? c - 22
        : at >= 0
          ? 36 + at
          : 43 + (c % 21);
}

/** Character bits of an ASCII string: `[low, high]` written into `out`. */
function charBits(text: string, out: Int32Array): void {
  let low = 0;
  let high = 0;
  for (let i = 0; i < text.length; i += 1) {
    const b = BIT[text.charCodeAt(i)] as number;
    if (b < 32) low |= 1 << b;
    else high |= 1 << (b - 32);
  }
  out[0] = low;
  out[1] = high;
}

function ones(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Whether bits `a` and `b` can belong to strings within `d` edits of each other. */
function mayBeWithin(aLow: number, aHigh: number, bLow: number, bHigh: number, d: number): boolean {
  return ones(aLow & ~bLow) + ones(aHigh & ~bHigh) <= d && ones(bLow & ~aLow) + ones(bHigh & ~aHigh) <= d;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The namespace a key is compared under: its text before the first `:`, lower case. */
function keyNamespace(key: string): string {
  const colon = key.indexOf(':');
  return (colon < 0 ? '' : key.slice(0, colon)).toLowerCase();
}

/**
 * Whether a key's namespace `ns` is close enough to a registry namespace to
 * search it. `mayBeClose: false` (a cheap screen's verdict that the two are
 * more than two edits apart) skips the distance.
 */
function isCloseNamespace(ns: string, candidate: string, mayBeClose = true): boolean {
  return (
    candidate === ns ||
    (candidate !== '' && ns.startsWith(candidate)) ||
    (mayBeClose && ns !== '' && candidate !== '' && boundedEditDistance(ns, candidate, 2) <= 2)
  );
}

/** Merges per-namespace lists: by position plus ten per edit (lower case, capped), first come first. */
function merge(lists: readonly (readonly string[])[], lowerKey: string, limit: number): string[] {
  const scored: { name: string; rank: number }[] = [];
  for (const list of lists) {
    list.forEach((name, i) => {
      scored.push({ name, rank: i + editDistance(lowerKey, name.toLowerCase(), 8) * 10 });
    });
  }
  return firstDistinct(
    scored.sort((a, b) => a.rank - b.rank).map((s) => s.name),
    limit,
  );
}

function firstDistinct(texts: readonly string[], limit: number): string[] {
  const out: string[] = [];
  for (const t of texts) {
    if (out.length >= limit) break;
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/**
 * The straightforward scan: each close namespace's names through core's
 * name-registry `suggest`. Registries answer with it for keys outside ASCII
 * (lower-casing a slice of such a key can differ from slicing its lower
 * case, which the index relies on); the property tests hold the index to it.
 */
export function suggestKeysByScan(
  namespaces: ReadonlyMap<string, NameRegistry<unknown>>,
  key: string,
  limit: number,
): string[] {
  const ns = keyNamespace(key);
  const lists: string[][] = [];
  for (const [candidate, r] of namespaces) {
    if (isCloseNamespace(ns, candidate)) lists.push(r.suggest(key, { limit }));
  }
  return merge(lists, key.toLowerCase(), limit);
}

/** See {@link createKeySuggester}. */
export interface KeySuggester {
  /**
   * Names close to `key`, closest first, at most `limit`, exactly as
   * {@link suggestKeysByScan} lists them; `undefined` for a key outside
   * ASCII, which the caller scans instead.
   */
  suggest(key: string, limit: number): string[] | undefined;
}

/** Builds the suggestion index over names in registration order. */
export function createKeySuggester(names: Iterable<SuggestableName>): KeySuggester {
  const spaces: Space[] = [];
  const byName = new Map<string, Space>();
  const scratch = new Int32Array(2);
  let order = 0;
  for (const { name, namespace, pattern } of names) {
    order += 1;
    let space = byName.get(namespace);
    if (!space) {
      charBits(namespace, scratch);
      space = {
        name: namespace,
        low: scratch[0] as number,
        high: scratch[1] as number,
        plains: [],
        groups: [],
      };
      byName.set(namespace, space);
      spaces.push(space);
    }
    if (!pattern.isPattern) {
      charBits(name, scratch);
      let sameLength = space.plains[name.length];
      if (!sameLength) {
        sameLength = [];
        space.plains[name.length] = sameLength;
      }
      sameLength.push({
        name,
        lower: name.toLowerCase(),
        order,
        low: scratch[0] as number,
        high: scratch[1] as number,
      });
      continue;
    }
    const head = pattern.prefix.toLowerCase();
    let group = space.groups.find((g) => g.head === head);
    if (!group) {
      group = { head, root: { char: -1, kids: [], entries: [] }, depth: 0 };
      space.groups.push(group);
    }
    const tail = pattern.suffix.toLowerCase();
    let node = group.root;
    for (let i = tail.length - 1; i >= 0; i -= 1) {
      const c = tail.charCodeAt(i);
      let next = node.kids.find((k) => k.char === c);
      if (!next) {
        next = { char: c, kids: [], entries: [] };
        node.kids.push(next);
      }
      node = next;
    }
    group.depth = Math.max(group.depth, tail.length);
    node.entries.push({ name, prefix: pattern.prefix, suffix: pattern.suffix, regex: pattern.regex, order });
  }

  // Working memory for one call (suggestions are synchronous).
  let key = '';
  let lowerKey = '';
  let n = 0;
  let keyLow = 0;
  let keyHigh = 0;
  /** The lower-case key, last character first. */
  let reversed = new Int32Array(256);
  /** One row of the tail table per trie depth. */
  let rows: Int32Array[] = [];

  /** Plain names of one namespace within `max` edits of the key. */
  const scorePlains = (space: Space, max: number, out: Scored[]): void => {
    const top = Math.min(space.plains.length - 1, n + max);
    for (let len = Math.max(0, n - max); len <= top; len += 1) {
      const list = space.plains[len];
      if (!list) continue;
      for (const p of list) {
        if (p.name === key) continue;
        let d = 0;
        if (p.lower !== lowerKey) {
          if (!mayBeWithin(keyLow, keyHigh, p.low, p.high, max)) continue;
          d = boundedEditDistance(key, p.name, max);
          if (d > max) continue;
        }
        out.push({ text: p.name, distance: d, order: p.order, caseless: p.name === p.lower });
      }
    }
  };

  /** The key's head against a group's head, the boundary shifted by one either way: `[distance, length]` pairs. */
  const headsOf = (group: HeadGroup, max: number): number[] => {
    const heads: number[] = [];
    for (let k = 0; k < 3; k += 1) {
      const len = group.head.length + (k === 0 ? 0 : k === 1 ? -1 : 1);
      if (len < 0 || len > n) continue;
      const d = boundedEditDistance(lowerKey, group.head, max, len);
      if (d <= max) heads.push(d, len);
    }
    return heads;
  };

  /** Patterned names of one head group within `max` edits, each with its best reading of the key. */
  const scoreGroup = (group: HeadGroup, heads: readonly number[], max: number, out: Scored[]): void => {
    let bestHead = FAR;
    for (let h = 0; h < heads.length; h += 2) bestHead = Math.min(bestHead, heads[h] as number);
    if (bestHead > max) return;
    const budget = max - bestHead;
    if (rows.length <= group.depth || (rows[0] as Int32Array).length <= n) {
      const width = Math.max(n + 1, rows[0]?.length ?? 0);
      rows = Array.from({ length: Math.max(group.depth + 1, rows.length) }, () => new Int32Array(width));
    }
    const table = rows;
    // Row 0: the empty tail against each end of the key.
    const root = table[0] as Int32Array;
    for (let j = Math.min(n, budget); j >= 0; j -= 1) root[j] = j;

    const score = (e: Patterned, depth: number): void => {
      const row = table[depth] as Int32Array;
      let best: { distance: number; text: string } | undefined;
      for (let h = 0; h < heads.length; h += 2) {
        const dh = heads[h] as number;
        const lh = heads[h + 1] as number;
        for (let k = 0; k < 3; k += 1) {
          const lt = e.suffix.length + (k === 0 ? 0 : k === 1 ? -1 : 1);
          if (lt < 0 || lh + lt > n) continue;
          // Outside the band the tails are more than `budget` apart.
          if (lt < depth - budget || lt > depth + budget) continue;
          const dt = row[lt] as number;
          if (dt > max - dh) continue;
          const distance = dh + dt;
          if (distance === 0) continue;
          // Show the name filled in with the key's own middle part when that is a valid key.
          const filled = e.prefix + key.slice(lh, n - lt) + e.suffix;
          const text = e.regex.test(filled) ? filled : e.name;
          if (
            !best ||
            distance < best.distance ||
            (distance === best.distance && text !== e.name && best.text === e.name)
          ) {
            best = { distance, text };
          }
        }
      }
      if (best) out.push({ text: best.text, distance: best.distance, order: e.order, caseless: false });
    };

    const visit = (node: TrieNode, depth: number): void => {
      for (const e of node.entries) score(e, depth);
      const i = depth + 1;
      const lo = i > budget ? i - budget : 0;
      const hi = Math.min(n, i + budget);
      if (lo > hi) return;
      const prev = table[depth] as Int32Array;
      const prevHi = Math.min(n, depth + budget);
      const cur = table[i] as Int32Array;
      const pp = depth > 0 ? (table[depth - 1] as Int32Array) : undefined;
      for (const kid of node.kids) {
        const c = kid.char;
        let rowMin = FAR;
        let left = FAR;
        let j = lo;
        if (j === 0) {
          cur[0] = i;
          rowMin = i;
          left = i;
          j = 1;
        }
        for (; j <= hi; j += 1) {
          const k = reversed[j - 1] as number;
          let v = (prev[j - 1] as number) + (c === k ? 0 : 1);
          if (j <= prevHi && (prev[j] as number) + 1 < v) v = (prev[j] as number) + 1;
          if (left + 1 < v) v = left + 1;
          if (pp && j > 1 && c === reversed[j - 2] && node.char === k && (pp[j - 2] as number) + 1 < v) {
            v = (pp[j - 2] as number) + 1;
          }
          cur[j] = v;
          left = v;
          if (v < rowMin) rowMin = v;
        }
        // Every longer tail through this node is at least this far away.
        if (rowMin <= budget) visit(kid, i);
      }
    };
    visit(group.root, 0);
  };

  /** One namespace's list, as core's name-registry `suggest(key, { limit })` gives it. */
  const suggestIn = (space: Space, max: number, limit: number): Scored[] => {
    const plains: Scored[] = [];
    scorePlains(space, max, plains);
    const live: [HeadGroup, number[]][] = [];
    for (const group of space.groups) {
      const heads = headsOf(group, max);
      if (heads.length) live.push([group, heads]);
    }
    for (let d = live.length ? 1 : max; ; d += 1) {
      const scored = d === max ? plains : plains.filter((p) => p.distance <= d);
      for (const [group, heads] of live) scoreGroup(group, heads, d, scored);
      scored.sort((a, b) => a.distance - b.distance || a.order - b.order);
      const out: Scored[] = [];
      for (const s of scored) {
        if (!out.some((o) => o.text === s.text)) out.push(s);
        if (out.length >= limit) break;
      }
      if (out.length >= limit || d >= max) return out;
    }
  };

  return {
    suggest(input, limit) {
      if (!isAscii(input)) return undefined;
      key = input;
      n = input.length;
      lowerKey = input.toLowerCase();
      if (reversed.length < n) reversed = new Int32Array(n * 2);
      for (let j = 0; j < n; j += 1) reversed[j] = lowerKey.charCodeAt(n - 1 - j);
      charBits(input, scratch);
      keyLow = scratch[0] as number;
      keyHigh = scratch[1] as number;
      const max = defaultMaxDistance(input);
      const ns = keyNamespace(input);
      charBits(ns, scratch);
      const nsLow = scratch[0] as number;
      const nsHigh = scratch[1] as number;
      const caseless = input === lowerKey;
      const scored: { name: string; rank: number }[] = [];
      for (const space of spaces) {
        if (!isCloseNamespace(ns, space.name, mayBeWithin(nsLow, nsHigh, space.low, space.high, 2))) continue;
        suggestIn(space, max, limit).forEach((s, i) => {
          // A lower-case name's distance from a lower-case key is already known.
          const d = caseless && s.caseless ? s.distance : editDistance(lowerKey, s.text.toLowerCase(), 8);
          scored.push({ name: s.text, rank: i + d * 10 });
        });
      }
      return firstDistinct(
        scored.sort((a, b) => a.rank - b.rank).map((s) => s.name),
        limit,
      );
    },
  };
}
