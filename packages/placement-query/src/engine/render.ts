import type { Microversion } from '@stackspec/core';
import { atLeast, toMicroversion } from '../microversion.js';
import { capacityOf, type Provider } from '../model/store.js';
import { type CandidatesResult, GroupCandidate, type GroupRequest } from './candidates.js';

/** A link in Placement's provider representation. */
export interface ProviderLink {
  rel: string;
  href: string;
}

/** A provider as `GET /resource_providers` shows it at some microversion. */
export interface ProviderJson {
  uuid: string;
  name: string;
  generation: number;
  links: ProviderLink[];
  parent_provider_uuid?: string | null;
  root_provider_uuid?: string;
}

/** Placement's JSON for one provider; `prefix` is where the API is mounted (`/placement`). */
export function renderProvider(p: Provider, microversion: Microversion | string, prefix = ''): ProviderJson {
  const v = toMicroversion(microversion);
  const self = `${prefix}/resource_providers/${p.uuid}`;
  const rels = ['inventories', 'usages'];
  if (atLeast(v, 1)) rels.push('aggregates');
  if (atLeast(v, 6)) rels.push('traits');
  if (atLeast(v, 11)) rels.push('allocations');
  const out: ProviderJson = {
    uuid: p.uuid,
    name: p.name,
    generation: p.generation,
    links: [{ rel: 'self', href: self }, ...rels.map((rel) => ({ rel, href: `${self}/${rel}` }))],
  };
  if (atLeast(v, 14)) {
    out.parent_provider_uuid = p.parent ? p.parent.uuid : null;
    out.root_provider_uuid = p.root.uuid;
  }
  return out;
}

/** `{"resource_providers": [...]}` as Placement answers `GET /resource_providers`. */
export function renderProviderList(
  providers: readonly Provider[],
  microversion: Microversion | string,
  prefix = '',
): { resource_providers: ProviderJson[] } {
  return { resource_providers: providers.map((p) => renderProvider(p, microversion, prefix)) };
}

/** One provider summary of `GET /allocation_candidates`. */
export interface ProviderSummaryJson {
  resources: Record<string, { capacity: number; used: number }>;
  traits?: string[];
  parent_provider_uuid?: string | null;
  root_provider_uuid?: string;
}

/** An allocation request in the dict form (1.12+). */
export interface AllocationRequestJson {
  allocations: Record<string, { resources: Record<string, number> }>;
  mappings?: Record<string, string[]>;
}

/** An allocation request in the list form (1.10–1.11). */
export interface AllocationRequestListJson {
  allocations: { resource_provider: { uuid: string }; resources: Record<string, number> }[];
}

/** The body of `GET /allocation_candidates`. */
export interface AllocationCandidatesJson {
  allocation_requests: (AllocationRequestJson | AllocationRequestListJson)[];
  provider_summaries: Record<string, ProviderSummaryJson>;
}

/**
 * Renders candidates as Placement's body at a microversion: list-form
 * allocations below 1.12, `mappings` from 1.34; summaries show requested
 * classes only below 1.27, traits from 1.17, parent and root from 1.29.
 * Traits are sorted (Placement's order is whatever its database returns).
 */
export function renderCandidates(
  result: CandidatesResult,
  microversion: Microversion | string,
): AllocationCandidatesJson {
  const v = toMicroversion(microversion);
  const dict = atLeast(v, 12);
  const allocation_requests = result.candidates.map((c) => {
    if (!dict) {
      return {
        allocations: [...c.allocations].map(([p, inner]) => ({
          resource_provider: { uuid: p.uuid },
          resources: Object.fromEntries(inner),
        })),
      };
    }
    const out: AllocationRequestJson = {
      allocations: Object.fromEntries(
        [...c.allocations].map(([p, inner]) => [p.uuid, { resources: Object.fromEntries(inner) }]),
      ),
    };
    if (atLeast(v, 34)) {
      out.mappings = Object.fromEntries([...c.mappings].map(([s, set]) => [s, [...set].map((p) => p.uuid)]));
    }
    return out;
  });
  const provider_summaries: Record<string, ProviderSummaryJson> = {};
  const all = atLeast(v, 27);
  for (const p of result.summaries) {
    const resources: Record<string, { capacity: number; used: number }> = {};
    for (const [rc, inv] of p.inventories) {
      if (!all && !result.requestedClasses.has(rc)) continue;
      resources[rc] = { capacity: capacityOf(inv), used: p.usages.get(rc) ?? 0 };
    }
    const s: ProviderSummaryJson = { resources };
    if (atLeast(v, 17)) s.traits = [...p.traits].sort();
    if (atLeast(v, 29)) {
      s.parent_provider_uuid = p.parent ? p.parent.uuid : null;
      s.root_provider_uuid = p.root.uuid;
    }
    provider_summaries[p.uuid] = s;
  }
  return { allocation_requests, provider_summaries };
}

const SAFE = /^[A-Za-z0-9_.:-]*$/;
function q(text: string): string {
  return SAFE.test(text) ? `"${text}"` : JSON.stringify(text);
}

interface Fragment {
  revision: number;
  variant: string;
  text: string;
}
const summaryFragments = new WeakMap<Provider, Fragment>();
const providerFragments = new WeakMap<Provider, ProviderFragment>();

function summaryText(p: Provider, v: Microversion, requested: Set<string>): string {
  const all = atLeast(v, 27);
  let out = '{"resources": {';
  let first = true;
  for (const [rc, inv] of p.inventories) {
    if (!all && !requested.has(rc)) continue;
    out += `${first ? '' : ', '}${q(rc)}: {"capacity": ${capacityOf(inv)}, "used": ${p.usages.get(rc) ?? 0}}`;
    first = false;
  }
  out += '}';
  if (atLeast(v, 17)) out += `, "traits": [${[...p.traits].sort().map(q).join(', ')}]`;
  if (atLeast(v, 29)) {
    out += `, "parent_provider_uuid": ${p.parent ? q(p.parent.uuid) : 'null'}, "root_provider_uuid": ${q(p.root.uuid)}`;
  }
  return `${out}}`;
}

/** Options for the text renderers. */
export interface RenderTextOptions {
  /** The store's revision: when given, per-provider fragments are cached until it changes. */
  revision?: number;
  /** Mount prefix for provider links. */
  prefix?: string;
}

/**
 * The same body as {@link renderCandidates}, written straight to JSON text
 * (what the HTTP service sends): several times faster for large answers,
 * with per-provider summary fragments reused while the store is unchanged.
 */
export function renderCandidatesJson(
  result: CandidatesResult,
  microversion: Microversion | string,
  options: RenderTextOptions = {},
): string {
  const v = toMicroversion(microversion);
  const dict = atLeast(v, 12);
  const mappings = atLeast(v, 34);
  let out = '{"allocation_requests": [';
  let firstCandidate = true;
  for (const c of result.candidates) {
    out += firstCandidate ? '{"allocations": ' : ', {"allocations": ';
    firstCandidate = false;
    let first = true;
    if (!dict) {
      out += '[';
      for (const [p, inner] of c.allocations) {
        out += `${first ? '' : ', '}{"resource_provider": {"uuid": ${p.uuidJson}}, "resources": {${amounts(inner)}}}`;
        first = false;
      }
      out += ']}';
      continue;
    }
    out += '{';
    for (const [p, inner] of c.allocations) {
      out += `${first ? '' : ', '}${p.uuidJson}: {"resources": {${amounts(inner)}}}`;
      first = false;
    }
    out += '}';
    if (mappings) {
      out += ', "mappings": {';
      let firstMap = true;
      for (const [suffix, set] of c.mappings) {
        out += `${firstMap ? '' : ', '}${quoted(suffix)}: [`;
        firstMap = false;
        let firstP = true;
        for (const p of set) {
          out += firstP ? p.uuidJson : `, ${p.uuidJson}`;
          firstP = false;
        }
        out += ']';
      }
      out += '}';
    }
    out += '}';
  }
  out += '], "provider_summaries": {';
  const variant = `${atLeast(v, 17)}${atLeast(v, 29)}`;
  const cacheable = options.revision !== undefined && atLeast(v, 27);
  let firstSummary = true;
  for (const p of result.summaries) {
    let text: string | undefined;
    if (cacheable) {
      const hit = summaryFragments.get(p);
      if (hit && hit.revision === options.revision && hit.variant === variant) text = hit.text;
    }
    if (text === undefined) {
      text = summaryText(p, v, result.requestedClasses);
      if (cacheable) summaryFragments.set(p, { revision: options.revision as number, variant, text });
    }
    out += `${firstSummary ? '' : ', '}${p.uuidJson}: ${text}`;
    firstSummary = false;
  }
  return `${out}}}`;
}

// Names as JSON string literals, remembered with whether they are plain ASCII.
const quotedNames = new Map<string, { text: string; ascii: boolean }>();
/** Set when a name written through {@link quoted} is not plain ASCII. */
let sawNonAscii = false;
function quoted(name: string): string {
  let hit = quotedNames.get(name);
  if (hit === undefined) {
    const text = q(name);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range starts at NUL on purpose
    hit = { text, ascii: !/[^\x00-\x7f]/.test(text) };
    if (quotedNames.size < 10_000) quotedNames.set(name, hit);
  }
  if (!hit.ascii) sawNonAscii = true;
  return hit.text;
}

function amounts(inner: ReadonlyMap<string, number>): string {
  let out = '';
  for (const [rc, n] of inner) out += out ? `, ${quoted(rc)}: ${n}` : `${quoted(rc)}: ${n}`;
  return out;
}

/** The same body as {@link renderProviderList}, written straight to JSON text with cached fragments. */
export function renderProviderListJson(
  providers: readonly Provider[],
  microversion: Microversion | string,
  options: RenderTextOptions = {},
): string {
  const v = toMicroversion(microversion);
  const prefix = options.prefix ?? '';
  const variant = `${v.minor}|${prefix}`;
  const items: string[] = [];
  for (const p of providers) items.push(providerFragment(p, v, prefix, variant, options.revision).text);
  return `{"resource_providers": [${items.join(', ')}]}`;
}

interface ProviderFragment {
  revision: number | undefined;
  variant: string;
  text: string;
  bytes?: Buffer;
}

function providerFragment(
  p: Provider,
  v: Microversion,
  prefix: string,
  variant: string,
  revision: number | undefined,
): ProviderFragment {
  const hit = revision !== undefined ? providerFragments.get(p) : undefined;
  if (hit && hit.revision === revision && hit.variant === variant) return hit;
  const fragment = { revision, variant, text: JSON.stringify(renderProvider(p, v, prefix)) };
  if (revision !== undefined) providerFragments.set(p, fragment);
  return fragment;
}

/**
 * The body of {@link renderProviderListJson} as UTF-8 bytes (what the HTTP
 * service sends): each provider's JSON is kept as bytes while the store's
 * revision is unchanged and copied once into the body.
 */
export function renderProviderListBytes(
  providers: readonly Provider[],
  microversion: Microversion | string,
  options: RenderTextOptions = {},
): Uint8Array {
  const v = toMicroversion(microversion);
  const prefix = options.prefix ?? '';
  const variant = `${v.minor}|${prefix}`;
  // Each fragment is kept with its leading separator; the first skips it.
  const parts: Buffer[] = [];
  let size = 0;
  for (const p of providers) {
    const f = providerFragment(p, v, prefix, variant, options.revision);
    f.bytes ??= Buffer.from(`, ${f.text}`);
    parts.push(f.bytes);
    size += f.bytes.length;
  }
  const head = '{"resource_providers": [';
  const out = Buffer.allocUnsafe(head.length + size + 2);
  let at = out.write(head, 0, 'latin1');
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i] as Buffer;
    at += part.copy(out, at, i ? 0 : 2);
  }
  at += out.write(']}', at, 'latin1');
  return out.subarray(0, at);
}

class ByteWriter {
  buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  #ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  /** Writes text that is ASCII by construction (uuids, class names, suffixes, numbers). */
  ascii(s: string): void {
    this.#ensure(s.length);
    this.pos += this.buf.write(s, this.pos, 'latin1');
  }
  bytes(b: Uint8Array): void {
    this.#ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  done(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

interface GroupFragments {
  /** `"VCPU": 1` per class of the group request. */
  classes: string[];
  /** `, "mappings": {"<suffix>": [` */
  mappings: string;
  /** Whether every name is plain ASCII (see {@link sawNonAscii}). */
  ascii: boolean;
}
// Group requests of one group share their classes and amounts arrays, so
// their fragments are written once per group (keyed by those arrays).
const groupFragments = new WeakMap<
  readonly string[],
  { amounts: readonly number[]; frags: GroupFragments }
>();
function fragmentsOf(r: GroupRequest): GroupFragments {
  const hit = groupFragments.get(r.classes);
  if (hit && hit.amounts === r.amounts) {
    if (!hit.frags.ascii) sawNonAscii = true;
    return hit.frags;
  }
  const before = sawNonAscii;
  sawNonAscii = false;
  const frags = {
    classes: r.classes.map((rc, k) => `${quoted(rc)}: ${r.amounts[k]}`),
    mappings: `, "mappings": {${quoted(r.suffix)}: [`,
    ascii: true,
  };
  frags.ascii = !sawNonAscii;
  sawNonAscii ||= before;
  groupFragments.set(r.classes, { amounts: r.amounts, frags });
  return frags;
}

const summaryBytes = new WeakMap<Provider, { revision: number; variant: string; bytes: Buffer }>();

/**
 * The body of {@link renderCandidatesJson} as UTF-8 bytes, written straight
 * into a buffer (what the HTTP service sends). Summaries are reused as bytes
 * while the store's revision is unchanged.
 */
export function renderCandidatesBytes(
  result: CandidatesResult,
  microversion: Microversion | string,
  options: RenderTextOptions = {},
): Uint8Array {
  const v = toMicroversion(microversion);
  if (!atLeast(v, 27) || options.revision === undefined) {
    return Buffer.from(renderCandidatesJson(result, v, options));
  }
  const mappings = atLeast(v, 34);
  sawNonAscii = false;
  const w = new ByteWriter(400 * result.candidates.length + 300 * result.summaries.length + 64);
  // Candidates are joined into strings of a few KiB before each write: one
  // native call per chunk instead of per candidate.
  let pending = '{"allocation_requests": [';
  let first = true;
  for (const c of result.candidates) {
    let s = first ? '{"allocations": {' : ', {"allocations": {';
    first = false;
    if (c instanceof GroupCandidate) {
      const { picks, providers } = c.request;
      const frags = fragmentsOf(c.request);
      // The picks grouped by provider, in first-appearance order.
      for (let i = 0; i < picks.length; i += 1) {
        const p = picks[i] as Provider;
        let seenBefore = false;
        for (let j = 0; j < i; j += 1) if (picks[j] === p) seenBefore = true;
        if (seenBefore) continue;
        s += `${i ? ', ' : ''}${p.uuidJson}: {"resources": {${frags.classes[i]}`;
        for (let j = i + 1; j < picks.length; j += 1) if (picks[j] === p) s += `, ${frags.classes[j]}`;
        s += '}}';
      }
      s += '}';
      if (mappings) {
        s += frags.mappings;
        for (let i = 0; i < providers.length; i += 1)
          s += i ? `, ${(providers[i] as Provider).uuidJson}` : (providers[i] as Provider).uuidJson;
        s += ']}';
      }
    } else {
      let firstP = true;
      for (const [p, inner] of c.allocations) {
        s += `${firstP ? '' : ', '}${p.uuidJson}: {"resources": {${amounts(inner)}}}`;
        firstP = false;
      }
      s += '}';
      if (mappings) {
        s += ', "mappings": {';
        let firstMap = true;
        for (const [suffix, set] of c.mappings) {
          s += `${firstMap ? '' : ', '}${quoted(suffix)}: [${[...set].map((p) => p.uuidJson).join(', ')}]`;
          firstMap = false;
        }
        s += '}';
      }
    }
    pending += `${s}}`;
    if (pending.length > 16384) {
      w.ascii(pending);
      pending = '';
    }
  }
  w.ascii(`${pending}], "provider_summaries": {`);
  const variant = `${atLeast(v, 17)}${atLeast(v, 29)}`;
  let firstSummary = true;
  for (const p of result.summaries) {
    let hit = summaryBytes.get(p);
    if (!hit || hit.revision !== options.revision || hit.variant !== variant) {
      // Cached with its leading separator; the first summary skips it.
      hit = {
        revision: options.revision,
        variant,
        bytes: Buffer.from(`, ${p.uuidJson}: ${summaryText(p, v, result.requestedClasses)}`),
      };
      summaryBytes.set(p, hit);
    }
    w.bytes(firstSummary ? hit.bytes.subarray(2) : hit.bytes);
    firstSummary = false;
  }
  w.ascii('}}');
  // Uuids are checked by the store; a non-ASCII class name or suffix (possible
  // only in a request built by hand) falls back to the UTF-8 writer.
  if (sawNonAscii) return Buffer.from(renderCandidatesJson(result, v, options));
  return w.done();
}
