import { createDiagnostic, type Diagnostic } from '@stackspec/core';
import { type Candidate, isTemplateName, type RegistryEntry } from './environment.js';

/** What a resource type resolves to through a user registry. */
export type Implementation =
  | {
      kind: 'template';
      /** The template as written, and resolved against its environment file. */
      target: string;
      resolved: string;
      /** Types (and wildcard keys) followed on the way, starting with the one asked for. */
      via: string[];
    }
  | {
      kind: 'type';
      /** A type the user registry does not map: a built-in plugin type, or one Heat will not find. */
      type: string;
      via: string[];
    }
  | {
      kind: 'candidates';
      /** The list entry reached: it needs `resolveEnvironment` first. */
      candidates: Candidate[];
      via: string[];
    };

/** Options of {@link lookupResourceType}. */
export interface LookupOptions {
  /** The resource's name in its template, for `resources:` overrides. */
  resourceName?: string | undefined;
  /**
   * Types Heat knows without the user registry (its plugin types and the
   * operator's global environment). When given, a mapping to a type outside
   * this set counts as not found and the next candidate is tried, as Heat
   * does; when absent, every unmapped type counts as known.
   */
  knownTypes?: ReadonlySet<string> | ((type: string) => boolean) | undefined;
}

/** Outcome of {@link lookupResourceType}. */
export type LookupResult =
  | { ok: true; implementation: Implementation; diagnostics: Diagnostic[] }
  | { ok: false; implementation?: undefined; diagnostics: Diagnostic[] };

interface Info {
  entry: RegistryEntry;
  path: string[];
}

const IMPLEMENTATION_KINDS = new Set(['template', 'type', 'wildcard', 'candidates']);

/**
 * The entries Heat keeps after loading a registry in document order: a
 * null entry removes the entry of the same name loaded before it, and a
 * null entry whose key ends in `*` removes every earlier sibling whose key
 * starts with the text before the `*` (hooks and nested mappings stay).
 * The null entries themselves are dropped.
 */
export function effectiveEntries(entries: readonly RegistryEntry[]): RegistryEntry[] {
  const kept: (RegistryEntry | undefined)[] = [];
  // Exact removals use an index; only wildcard removals scan their siblings.
  const index = new Map<string, number>();
  const parentOf = (e: RegistryEntry) => e.path.slice(0, -1).join('\u0000');
  for (const e of entries) {
    if (e.kind !== 'remove') {
      if (IMPLEMENTATION_KINDS.has(e.kind)) index.set(`${parentOf(e)}\u0001${e.type}`, kept.length);
      kept.push(e);
      continue;
    }
    const parent = parentOf(e);
    if (!e.type.endsWith('*')) {
      const at = index.get(`${parent}\u0001${e.type}`);
      if (at !== undefined) kept[at] = undefined;
      continue;
    }
    const prefix = e.type.slice(0, -1);
    kept.forEach((k, i) => {
      if (k && IMPLEMENTATION_KINDS.has(k.kind) && k.type.startsWith(prefix) && parentOf(k) === parent)
        kept[i] = undefined;
    });
  }
  return kept.filter((k): k is RegistryEntry => k !== undefined);
}

/** Python's ordering of the candidates Heat collects: deeper paths first, then by the path's keys. */
function compareInfo(a: Info, b: Info): number {
  if (a.path.length !== b.path.length) return b.path.length - a.path.length;
  for (let i = 0; i < a.path.length; i += 1) {
    const x = a.path[i] as string;
    const y = b.path[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Longest chain of aliases and wildcards followed before giving up. */
const MAX_CHAIN = 64;

class Cycle extends Error {
  constructor(readonly chain: string[]) {
    super('cycle');
  }
}

/**
 * Finds what a resource type maps to through a user `resource_registry`,
 * with Heat's rules: a per-resource override under `resources:` (exact
 * resource name) first, then the exact key and every matching wildcard,
 * tried in Heat's order (where `*` sorts before letters, so a matching
 * wildcard can shadow the exact key); aliases and wildcards are followed,
 * and a target Heat cannot find makes it try the next candidate. Null
 * entries remove what was loaded before them ({@link effectiveEntries}).
 * A type ending in `.yaml` or `.template` is its own template.
 *
 * An alias cycle (`A → B → A`), on which Heat recurses until Python's
 * recursion limit, is reported as `heat/registry/alias-cycle`; a type
 * that is not found anywhere (with `knownTypes`) as
 * `heat/registry/type-not-found`, with Heat's message.
 *
 * @example
 * const env = parseEnvironment('resource_registry:\n  OS::TripleO::*: OS::Heat::None\n');
 * lookupResourceType(env.registry, 'OS::TripleO::Services::Foo').implementation;
 * // { kind: 'type', type: 'OS::Heat::None', via: ['OS::TripleO::Services::Foo', 'OS::TripleO::*'] }
 */
export function lookupResourceType(
  registry: readonly RegistryEntry[],
  type: string,
  options: LookupOptions = {},
): LookupResult {
  const known = options.knownTypes;
  const isKnown = (t: string) =>
    known === undefined ? true : typeof known === 'function' ? known(t) : known.has(t);
  const top = new Map<string, RegistryEntry>();
  const perResource = new Map<string, RegistryEntry>();
  for (const e of effectiveEntries(registry)) {
    if (e.kind === 'hooks' || e.kind === 'restricted-actions' || e.kind === 'ignored') continue;
    if (e.path.length === 1) top.set(e.type, e);
    else if (e.path.length === 3 && e.path[0] === 'resources' && e.path[1] === options.resourceName)
      perResource.set(e.type, e);
  }

  const find = (t: string, chain: string[]): Implementation | undefined => {
    // A wildcard can rewrite a type into an ever longer one (`OS::*: OS::A::*`); bound the chain too.
    if (chain.includes(t) || chain.length > MAX_CHAIN) throw new Cycle([...chain, t]);
    const via = [...chain, t];
    if (isTemplateName(t)) return { kind: 'template', target: t, resolved: t, via };
    const infos: Info[] = [];
    const own = perResource.get(t);
    if (own) infos.push({ entry: own, path: own.path });
    const exact = top.get(t);
    if (exact) infos.push({ entry: exact, path: exact.path });
    for (const [key, entry] of top) {
      if (entry.kind !== 'wildcard') continue;
      const prefix = key.slice(0, -1);
      if (t !== entry.target && t.startsWith(prefix)) infos.push({ entry, path: entry.path });
    }
    infos.sort(compareInfo);
    for (const { entry } of infos) {
      const step = entry.path.length === 1 ? entry.type : entry.path.join('/');
      const stepVia = step === t ? via : [...via, step];
      switch (entry.kind) {
        case 'template':
          return {
            kind: 'template',
            target: entry.target as string,
            resolved: entry.resolved as string,
            via: stepVia,
          };
        case 'candidates':
          return { kind: 'candidates', candidates: entry.candidates as Candidate[], via: stepVia };
        case 'wildcard': {
          const target = entry.target as string;
          const next = target.endsWith('*') ? target.slice(0, -1) + t.slice(entry.type.length - 1) : target;
          const hit = find(next, stepVia);
          if (hit) return hit;
          break;
        }
        case 'type': {
          const hit = find(entry.target as string, stepVia);
          if (hit) return hit;
          break;
        }
        default:
          break;
      }
    }
    return isKnown(t) ? { kind: 'type', type: t, via } : undefined;
  };

  try {
    const implementation = find(type, []);
    if (implementation) return { ok: true, implementation, diagnostics: [] };
    return {
      ok: false,
      diagnostics: [
        createDiagnostic({
          code: 'heat/registry/type-not-found',
          message: `The Resource Type (${type}) could not be found.`,
          hint: 'Map it in resource_registry to a template (a name ending in .yaml or .template) or to a known type.',
        }),
      ],
    };
  } catch (e) {
    if (!(e instanceof Cycle)) throw e;
    return {
      ok: false,
      diagnostics: [
        createDiagnostic({
          code: 'heat/registry/alias-cycle',
          message:
            e.chain.length > MAX_CHAIN
              ? `The registry rewrites ${type} without end (${e.chain.slice(0, 4).join(' → ')} → …); Heat would recurse until it fails.`
              : `The registry maps ${type} in a circle: ${e.chain.join(' → ')}; Heat would recurse until it fails.`,
          hint: 'Map one of these types to a template or to OS::Heat::None.',
        }),
      ],
    };
  }
}
