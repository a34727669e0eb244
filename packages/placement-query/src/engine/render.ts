import type { Microversion } from '@stackspec/core';
import { atLeast, toMicroversion } from '../microversion.js';
import { capacityOf, type Provider } from '../model/store.js';
import { type CandidatesResult, GroupRequest, MergedCandidate } from './candidates.js';

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

/** The links a provider has besides `self`, by microversion. */
function linkRels(v: Microversion): string[] {
  const rels = ['inventories', 'usages'];
  if (atLeast(v, 1)) rels.push('aggregates');
  if (atLeast(v, 6)) rels.push('traits');
  if (atLeast(v, 11)) rels.push('allocations');
  return rels;
}

/** Placement's JSON for one provider; `prefix` is where the API is mounted (`/placement`). */
export function renderProvider(p: Provider, microversion: Microversion | string, prefix = ''): ProviderJson {
  const v = toMicroversion(microversion);
  const self = `${prefix}/resource_providers/${p.uuid}`;
  const out: ProviderJson = {
    uuid: p.uuid,
    name: p.name,
    generation: p.generation,
    links: [{ rel: 'self', href: self }, ...linkRels(v).map((rel) => ({ rel, href: `${self}/${rel}` }))],
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
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range starts at NUL on purpose
const ASCII = /^[\x00-\x7f]*$/;

/**
 * A JSON body built as UTF-8 bytes: text is gathered into strings of a few
 * KiB and each is written into the buffer in one native call (so no string
 * grows into a long chain of pieces, and nothing per value crosses into
 * native code). Everything the renderers write is ASCII except names that
 * need JSON escaping; once one is seen, the rest goes as UTF-8.
 */
class JsonWriter {
  #buf: Buffer;
  #pos = 0;
  #pending = '';
  #utf8 = false;
  readonly #names = new Map<string, string>();

  constructor(sizeHint: number) {
    this.#buf = Buffer.allocUnsafe(Math.max(256, sizeHint));
  }

  /** A string as a JSON literal. */
  text(value: string): string {
    if (SAFE.test(value)) return `"${value}"`;
    const literal = JSON.stringify(value);
    if (!ASCII.test(literal)) this.#utf8 = true;
    return literal;
  }

  /** {@link text} for names repeated through a body (classes, traits, suffixes), each quoted once. */
  name(value: string): string {
    let literal = this.#names.get(value);
    if (literal === undefined) {
      literal = this.text(value);
      this.#names.set(value, literal);
    }
    return literal;
  }

  add(text: string): void {
    this.#pending += text;
    if (this.#pending.length > 16384) this.#flush();
  }

  #flush(): void {
    const text = this.#pending;
    this.#pending = '';
    const need = this.#utf8 ? Buffer.byteLength(text) : text.length;
    if (this.#pos + need > this.#buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + need));
      this.#buf.copy(next, 0, 0, this.#pos);
      this.#buf = next;
    }
    this.#pos += this.#buf.write(text, this.#pos, this.#utf8 ? 'utf8' : 'latin1');
  }

  done(): Buffer {
    this.#flush();
    return this.#buf.subarray(0, this.#pos);
  }
}

/** Options for the text and byte renderers. */
export interface RenderTextOptions {
  /**
   * @deprecated Ignored: nothing is kept between calls any more, so bodies
   * cost the same whether or not the store changed in between.
   */
  revision?: number;
  /** Mount prefix for provider links. */
  prefix?: string;
}

/**
 * The body of {@link renderCandidates} as UTF-8 bytes, written straight from
 * the candidates (what the HTTP service sends), with Placement's separators
 * (`", "` and `": "`, as Python's `json.dumps` writes them). Every call
 * renders from scratch: nothing is cached between calls.
 */
export function renderCandidatesBytes(
  result: CandidatesResult,
  microversion: Microversion | string,
  _options: RenderTextOptions = {},
): Uint8Array {
  return candidatesBody(result, toMicroversion(microversion));
}

/** The same body as {@link renderCandidatesBytes}, as JSON text. */
export function renderCandidatesJson(
  result: CandidatesResult,
  microversion: Microversion | string,
  _options: RenderTextOptions = {},
): string {
  return candidatesBody(result, toMicroversion(microversion)).toString('utf8');
}

/**
 * One allocation entry: `"<uuid>": {"resources": {…}}`, or the list form
 * below 1.12. A module function rather than a closure made per body: V8
 * would otherwise optimise a fresh closure for every request.
 */
function allocationEntry(dict: boolean, first: boolean, p: Provider, amounts: string): string {
  return dict
    ? `${first ? '' : ', '}${p.uuidJson}: {"resources": {${amounts}}}`
    : `${first ? '' : ', '}{"resource_provider": {"uuid": ${p.uuidJson}}, "resources": {${amounts}}}`;
}

function candidatesBody(result: CandidatesResult, v: Microversion): Buffer {
  const steps = candidatesBodySteps(result, v);
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/**
 * {@link renderCandidatesBytes} that returns to the event loop after every
 * `sliceMs` (default 20 ms) of writing: a body of 100,000 candidates takes
 * the better part of a second to write.
 */
export async function renderCandidatesBytesAsync(
  result: CandidatesResult,
  microversion: Microversion | string,
  options: { sliceMs?: number } = {},
): Promise<Uint8Array> {
  const slice = options.sliceMs ?? 20;
  const steps = candidatesBodySteps(result, toMicroversion(microversion));
  let started = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - started >= slice) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      started = performance.now();
    }
  }
}

// The body, yielding every few hundred candidates or summaries (a chance to pause).
function* candidatesBodySteps(
  result: CandidatesResult,
  v: Microversion,
): Generator<undefined, Buffer, undefined> {
  let written = 0;
  const dict = atLeast(v, 12);
  const withMappings = atLeast(v, 34);
  const w = new JsonWriter(400 * result.candidates.length + 250 * result.summaries.length + 64);
  // `"VCPU": 1` per class of a group request; the group's requests share these arrays.
  const amountTexts = new Map<readonly string[], string[]>();
  w.add('{"allocation_requests": [');
  let firstCandidate = true;
  for (const c of result.candidates) {
    let s = `${firstCandidate ? '' : ', '}{"allocations": ${dict ? '{' : '['}`;
    firstCandidate = false;
    if (c instanceof GroupRequest) {
      const { picks, classes, amounts } = c;
      let texts = amountTexts.get(classes);
      if (texts === undefined) {
        texts = classes.map((rc, k) => `${w.name(rc)}: ${amounts[k]}`);
        amountTexts.set(classes, texts);
      }
      // The picks grouped by provider, in first-appearance order.
      for (let i = 0; i < picks.length; i += 1) {
        const p = picks[i] as Provider;
        if (picks.indexOf(p) < i) continue;
        let text = texts[i] as string;
        for (let j = i + 1; j < picks.length; j += 1) if (picks[j] === p) text += `, ${texts[j]}`;
        s += allocationEntry(dict, i === 0, p, text);
      }
      s += dict ? '}' : ']';
      if (withMappings) {
        s += `, "mappings": {${w.name(c.suffix)}: [`;
        const providers = c.providers;
        for (let i = 0; i < providers.length; i += 1) {
          s += i ? `, ${(providers[i] as Provider).uuidJson}` : (providers[i] as Provider).uuidJson;
        }
        s += ']}';
      }
    } else if (c instanceof MergedCandidate) {
      const { providers, parts } = c;
      for (let j = 0; j < providers.length; j += 1) {
        const { classes: rcs, amounts: ns } = c.sums(providers[j] as Provider);
        let text = '';
        for (let m = 0; m < rcs.length; m += 1)
          text += `${m ? ', ' : ''}${w.name(rcs[m] as string)}: ${ns[m]}`;
        s += allocationEntry(dict, j === 0, providers[j] as Provider, text);
      }
      s += dict ? '}' : ']';
      if (withMappings) {
        // One part per group, so each suffix comes once, in group order.
        s += ', "mappings": {';
        for (let i = 0; i < parts.length; i += 1) {
          const part = parts[i] as GroupRequest;
          s += `${i ? ', ' : ''}${w.name(part.suffix)}: [`;
          const ps = part.providers;
          for (let k = 0; k < ps.length; k += 1)
            s += k ? `, ${(ps[k] as Provider).uuidJson}` : (ps[k] as Provider).uuidJson;
          s += ']';
        }
        s += '}';
      }
    } else {
      let first = true;
      for (const [p, inner] of c.allocations) {
        let text = '';
        for (const [rc, n] of inner) text += `${text ? ', ' : ''}${w.name(rc)}: ${n}`;
        s += allocationEntry(dict, first, p, text);
        first = false;
      }
      s += dict ? '}' : ']';
      if (withMappings) {
        s += ', "mappings": {';
        let firstMapping = true;
        for (const [suffix, set] of c.mappings) {
          s += `${firstMapping ? '' : ', '}${w.name(suffix)}: [`;
          firstMapping = false;
          let firstP = true;
          for (const p of set) {
            s += firstP ? p.uuidJson : `, ${p.uuidJson}`;
            firstP = false;
          }
          s += ']';
        }
        s += '}';
      }
    }
    w.add(`${s}}`);
    if (++written % 512 === 0) yield;
  }
  w.add('], "provider_summaries": {');
  const all = atLeast(v, 27);
  const withTraits = atLeast(v, 17);
  const withTree = atLeast(v, 29);
  let firstSummary = true;
  for (const p of result.summaries) {
    let s = `${firstSummary ? '' : ', '}${p.uuidJson}: {"resources": {`;
    firstSummary = false;
    let first = true;
    for (const [rc, inv] of p.inventories) {
      if (!all && !result.requestedClasses.has(rc)) continue;
      s += `${first ? '' : ', '}${w.name(rc)}: {"capacity": ${capacityOf(inv)}, "used": ${p.usages.get(rc) ?? 0}}`;
      first = false;
    }
    s += '}';
    if (withTraits) {
      // The store keeps each provider's traits in sorted order.
      s += ', "traits": [';
      first = true;
      for (const t of p.traits) {
        s += first ? w.name(t) : `, ${w.name(t)}`;
        first = false;
      }
      s += ']';
    }
    if (withTree) s += treeFields(p);
    w.add(`${s}}`);
    if (++written % 512 === 0) yield;
  }
  w.add('}}');
  return w.done();
}

/** `, "parent_provider_uuid": …, "root_provider_uuid": …`, as summaries and provider lists show them. */
function treeFields(p: Provider): string {
  return `, "parent_provider_uuid": ${p.parent ? p.parent.uuidJson : 'null'}, "root_provider_uuid": ${p.root.uuidJson}`;
}

/** The same body as {@link renderProviderList}, as JSON text. */
export function renderProviderListJson(
  providers: readonly Provider[],
  microversion: Microversion | string,
  options: RenderTextOptions = {},
): string {
  return providerListBody(providers, toMicroversion(microversion), options.prefix ?? '').toString('utf8');
}

/**
 * The body of {@link renderProviderList} as UTF-8 bytes, written straight
 * from the providers (what the HTTP service sends), with Placement's
 * separators. Nothing is cached between calls.
 */
export function renderProviderListBytes(
  providers: readonly Provider[],
  microversion: Microversion | string,
  options: RenderTextOptions = {},
): Uint8Array {
  return providerListBody(providers, toMicroversion(microversion), options.prefix ?? '');
}

function providerListBody(providers: readonly Provider[], v: Microversion, prefix: string): Buffer {
  const w = new JsonWriter(320 * providers.length + 32);
  // The links' common start, `"<prefix>/resource_providers/`, left open for the uuid.
  const href = w.text(`${prefix}/resource_providers/`).slice(0, -1);
  const rels = linkRels(v);
  const withTree = atLeast(v, 14);
  w.add('{"resource_providers": [');
  let first = true;
  for (const p of providers) {
    let s = `${first ? '' : ', '}{"uuid": ${p.uuidJson}, "name": ${w.text(p.name)}, "generation": ${p.generation}, "links": [{"rel": "self", "href": ${href}${p.uuid}"}`;
    first = false;
    for (const rel of rels) s += `, {"rel": "${rel}", "href": ${href}${p.uuid}/${rel}"}`;
    s += ']';
    if (withTree) s += treeFields(p);
    w.add(`${s}}`);
  }
  w.add(']}');
  return w.done();
}
