import {
  createDiagnostic,
  type Diagnostic,
  isStackspecError,
  isStandardResourceClass,
  ValidationError,
} from '@stackspec/core';
import { z } from 'zod';
import { toMicroversion, versionText } from './microversion.js';
import { parseMemberOfValue } from './parse.js';
import { pyInt, pySortedSet } from './python.js';
import type { AllocationCandidatesRequest, RequestGroup } from './request.js';

/** A flavor as Nova describes it; sizes default to 0. */
export const FlavorSchema = z.object({
  vcpus: z.number().int().min(0).default(0),
  memory_mb: z.number().int().min(0).default(0),
  root_gb: z.number().int().min(0).default(0),
  ephemeral_gb: z.number().int().min(0).default(0),
  /** Swap in MiB (rounded up to whole GiB of DISK_GB, as Nova does). */
  swap: z.number().int().min(0).default(0),
  /** Boot from volume: the root disk is not counted. */
  is_bfv: z.boolean().default(false),
  extra_specs: z.record(z.string(), z.string()).default({}),
});
/** A flavor (input form: every field optional). */
export type FlavorInput = z.input<typeof FlavorSchema>;

/** A host aggregate with its metadata, for the aggregate rules. */
export interface AggregateInfo {
  uuid: string;
  name?: string;
  metadata: Readonly<Record<string, string>>;
}

/** Options for {@link flavorToRequest}. */
export interface FlavorRequestOptions {
  /** Microversion of the produced request (default 1.39). */
  microversion?: string;
  /** `limit` (Nova's `[scheduler]/max_placement_results`, default 1000; `null` for none). */
  limit?: number | null;
  /** Image properties: `traits_required`, `hw_cpu_policy`, `hw_cpu_thread_policy`, `hw_mem_encryption`. */
  image?: {
    traits_required?: readonly string[];
    hw_cpu_policy?: string;
    hw_cpu_thread_policy?: string;
    hw_mem_encryption?: boolean | string;
  };
  /** The host aggregates and their metadata, for the rules below. */
  aggregates?: readonly AggregateInfo[];
  /**
   * The spec's `placement_req_required_member_prefix` (for example
   * `reservation:`): for every flavor extra spec `K=V` where `K:V` starts
   * with the prefix, the aggregates carrying metadata `K=V` become a
   * required `member_of=in:…` of the unsuffixed group.
   */
  requiredMemberPrefix?: string;
  /**
   * The spec's `placement_req_default_forbidden_member_prefix`: unless the
   * flavor has an extra spec whose `K:V` starts with one of these prefixes,
   * every aggregate with such metadata is forbidden
   * (`member_of=!in:…`), so ordinary instances stay off reserved hosts.
   */
  defaultForbiddenMemberPrefixes?: readonly string[];
  /**
   * Nova's `[scheduler]/enable_isolated_aggregate_filtering`: aggregates
   * with metadata `trait:T=required` are forbidden unless the request
   * requires T.
   */
  isolateAggregates?: boolean;
}

/** The request and what was ignored (as Nova logs and skips). */
export interface FlavorRequestResult {
  request: AllocationCandidatesRequest;
  /** Warnings for extra specs Nova would skip, with `path` `/extra_specs/<key>`. */
  diagnostics: Diagnostic[];
}

const KEY = /^(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)$/;
const MEMBER_OF_KEY = /^member_of([a-zA-Z0-9_-]{1,64})?$/;
const TRUE = new Set(['1', 't', 'true', 'on', 'y', 'yes']);

interface Group {
  resources: Map<string, number>;
  required: Set<string>;
  forbidden: Set<string>;
  memberOf: string[][];
  forbiddenAggs: Set<string>;
}

function pointer(key: string): string {
  return `/extra_specs/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * Turns a flavor (and optionally image properties and aggregate metadata)
 * into a `GET /allocation_candidates` request the way Nova's scheduler
 * builds it: `resources[$S]:RC=N` overrides the flavor's VCPU, MEMORY_MB and
 * DISK_GB (0 removes a class), `trait[$S]:T=required|forbidden`,
 * `group_policy`, CPU pinning (`hw:cpu_policy=dedicated` asks for PCPU,
 * `hw:cpu_thread_policy` for HW_CPU_HYPERTHREADING), `hw:mem_encryption`;
 * plus `member_of[$S]` extra specs in Placement's syntax (an extension Nova
 * lacks), the spec's reservation flow (required-member and
 * default-forbidden prefixes over aggregate metadata) and Nova's
 * isolated-aggregate filtering.
 *
 * Entries Nova skips with a log line (an unknown resource class, a
 * negative amount, a trait value other than required/forbidden, an invalid
 * group_policy) come back as warnings. Throws a `ValidationError` with code
 * `placement-query/unknown-reservation` when the flavor names a
 * reservation no aggregate carries (nothing could ever match).
 *
 * @example
 * flavorToRequest({ vcpus: 2, memory_mb: 2048, root_gb: 20 }, {
 *   aggregates: [{ uuid: A, metadata: { reservation: 'r1' } }],
 *   defaultForbiddenMemberPrefixes: ['reservation:'],
 * }).request.groups[0].forbiddenAggregates; // [A]
 */
export function flavorToRequest(
  flavor: FlavorInput,
  options: FlavorRequestOptions = {},
): FlavorRequestResult {
  const parsed = FlavorSchema.safeParse(flavor);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message =
      `The flavor is not valid: ${issue?.path.join('.') || 'flavor'} ${issue?.message ?? ''}`.trim();
    throw new ValidationError(message, {
      code: 'placement-query/invalid-flavor',
      diagnostics: [
        createDiagnostic({
          code: 'placement-query/invalid-flavor',
          message,
          path: issue ? `/${issue.path.join('/')}` : '',
        }),
      ],
    });
  }
  const f = parsed.data;
  const version = toMicroversion(options.microversion ?? '1.39');
  const diagnostics: Diagnostic[] = [];
  const warn = (key: string, code: string, message: string, hint?: string) =>
    diagnostics.push(
      createDiagnostic({ code, message, path: pointer(key), severity: 'warning', ...(hint ? { hint } : {}) }),
    );
  const groups = new Map<string, Group>();
  const group = (suffix: string): Group => {
    let g = groups.get(suffix);
    if (!g) {
      g = {
        resources: new Map(),
        required: new Set(),
        forbidden: new Set(),
        memberOf: [],
        forbiddenAggs: new Set(),
      };
      groups.set(suffix, g);
    }
    return g;
  };
  let groupPolicy: 'none' | 'isolate' | undefined;
  const specs = f.extra_specs;

  for (const [key, value] of Object.entries(specs)) {
    if (key === 'group_policy') {
      if (value === 'none' || value === 'isolate') groupPolicy = value;
      else
        warn(
          key,
          'flavor/invalid-group-policy',
          `Invalid group_policy '${value}'. Valid values are 'none' and 'isolate'.`,
        );
      continue;
    }
    const m =
      KEY.exec(key) ?? (MEMBER_OF_KEY.test(key) ? ['', 'member_of', key.slice(9) || undefined, ''] : null);
    if (!m) continue;
    const [, prefix, suffix = '', name = ''] = m as [string, string, string | undefined, string];
    if (prefix === 'resources') {
      if (!(name.startsWith('CUSTOM_') || isStandardResourceClass(name))) {
        warn(
          key,
          'flavor/invalid-resource-class',
          `Received an invalid ResourceClass '${name}' in extra_specs.`,
        );
        continue;
      }
      const amount = pyInt(value);
      if (amount === undefined || amount < 0n) {
        warn(
          key,
          'flavor/invalid-amount',
          `Resource amounts must be nonnegative integers. Received '${value}'`,
        );
        continue;
      }
      group(suffix).resources.set(name, Number(amount));
    } else if (prefix === 'trait') {
      if (value === 'required') group(suffix).required.add(name);
      else if (value === 'forbidden') group(suffix).forbidden.add(name);
      else
        warn(
          key,
          'flavor/invalid-trait-value',
          `Only (required, forbidden) traits are supported. Received '${value}'.`,
        );
    } else {
      // member_of[$S] (our extension), checked with Placement's own grammar.
      try {
        const r = parseMemberOfValue(value, key);
        if (r.required) group(suffix).memberOf.push(r.required);
        for (const a of r.forbidden ?? []) group(suffix).forbiddenAggs.add(a);
      } catch (e) {
        if (!isStackspecError(e)) throw e;
        warn(key, 'flavor/invalid-member-of', e.message);
      }
    }
  }
  const suffixedFromFlavor = [...groups.keys()].filter((s) => s !== '').length;

  // Image traits join the unsuffixed group.
  for (const t of options.image?.traits_required ?? []) group('').required.add(t);

  // CPU pinning policies.
  const cpuPolicy = specs['hw:cpu_policy'] ?? options.image?.hw_cpu_policy;
  const threadPolicy = specs['hw:cpu_thread_policy'] ?? options.image?.hw_cpu_thread_policy;
  if (cpuPolicy === 'dedicated') {
    const pcpus = f.vcpus + (specs['hw:emulator_threads_policy'] === 'isolate' ? 1 : 0);
    group('').resources.set('PCPU', pcpus);
  } else if (cpuPolicy === 'mixed') {
    warn(
      'hw:cpu_policy',
      'flavor/not-translated',
      'hw:cpu_policy=mixed is not translated to PCPU; only VCPU is requested.',
    );
  }
  if (threadPolicy === 'isolate') group('').forbidden.add('HW_CPU_HYPERTHREADING');
  if (threadPolicy === 'require') group('').required.add('HW_CPU_HYPERTHREADING');

  // The flavor's own sizes, unless extra specs already name the class somewhere.
  const named = new Set<string>();
  for (const g of groups.values()) for (const rc of g.resources.keys()) named.add(rc);
  if (!named.has('VCPU') && !named.has('PCPU')) group('').resources.set('VCPU', f.vcpus);
  if (!named.has('MEMORY_MB')) group('').resources.set('MEMORY_MB', f.memory_mb);
  if (!named.has('DISK_GB')) {
    const disk = f.ephemeral_gb + Math.ceil(f.swap / 1024) + (f.is_bfv ? 0 : f.root_gb);
    if (disk) group('').resources.set('DISK_GB', disk);
  }
  const mem = specs['hw:mem_encryption'] ?? options.image?.hw_mem_encryption;
  if (mem !== undefined && TRUE.has(String(mem).toLowerCase()))
    group('').resources.set('MEM_ENCRYPTION_CONTEXT', 1);

  // Aggregate rules over metadata.
  const aggregates = options.aggregates ?? [];
  const items = (meta: Readonly<Record<string, string>>) => Object.entries(meta).map(([k, v]) => `${k}:${v}`);
  const flavorItems = Object.entries(specs).map(([k, v]) => `${k}:${v}`);
  if (options.requiredMemberPrefix) {
    const prefix = options.requiredMemberPrefix;
    for (const item of flavorItems.filter((i) => i.startsWith(prefix))) {
      const matching = aggregates.filter((a) => items(a.metadata).includes(item)).map((a) => a.uuid);
      if (!matching.length) {
        const message = `The flavor asks for aggregates with metadata ${item}, but no aggregate carries it, so no host could ever match.`;
        throw new ValidationError(message, {
          code: 'placement-query/unknown-reservation',
          diagnostics: [
            createDiagnostic({
              code: 'placement-query/unknown-reservation',
              message,
              path: pointer(item.split(':')[0] ?? item),
            }),
          ],
        });
      }
      group('').memberOf.push(pySortedSet(matching));
    }
  }
  for (const prefix of options.defaultForbiddenMemberPrefixes ?? []) {
    if (flavorItems.some((i) => i.startsWith(prefix))) continue;
    for (const a of aggregates)
      if (items(a.metadata).some((i) => i.startsWith(prefix))) group('').forbiddenAggs.add(a.uuid);
  }
  if (options.isolateAggregates) {
    const requiredTraits = new Set<string>();
    for (const g of groups.values()) for (const t of g.required) requiredTraits.add(t);
    for (const a of aggregates) {
      const isolating = Object.entries(a.metadata).some(
        ([k, v]) => k.startsWith('trait:') && v === 'required' && !requiredTraits.has(k.slice(6)),
      );
      if (isolating) group('').forbiddenAggs.add(a.uuid);
    }
  }

  // Zero amounts are dropped, then empty groups.
  const out: RequestGroup[] = [];
  for (const [suffix, g] of groups) {
    const resources: Record<string, number> = {};
    for (const [rc, n] of g.resources) if (n > 0) resources[rc] = n;
    const empty =
      !Object.keys(resources).length &&
      !g.required.size &&
      !g.forbidden.size &&
      !g.memberOf.length &&
      !g.forbiddenAggs.size;
    if (empty) continue;
    out.push({
      suffix,
      resources,
      requiredTraits: pySortedSet(g.required).map((t) => [t]),
      forbiddenTraits: pySortedSet(g.forbidden),
      memberOf: g.memberOf,
      forbiddenAggregates: pySortedSet(g.forbiddenAggs),
    });
  }
  out.sort((a, b) => (a.suffix === '' ? -1 : b.suffix === '' ? 1 : 0));
  if (!groupPolicy && out.filter((g) => g.suffix !== '').length >= 2) {
    if (suffixedFromFlavor <= 1) groupPolicy = 'none';
    else {
      diagnostics.push(
        createDiagnostic({
          code: 'flavor/missing-group-policy',
          severity: 'warning',
          message:
            'The flavor has more than one numbered request group but no group_policy; Placement will refuse the query.',
          path: pointer('group_policy'),
          hint: 'add group_policy=none (groups may share a provider) or group_policy=isolate',
        }),
      );
    }
  }
  const limit = options.limit === undefined ? 1000 : options.limit;
  return {
    request: {
      endpoint: 'allocation_candidates',
      microversion: versionText(version),
      ...(limit !== null ? { limit } : {}),
      ...(groupPolicy ? { groupPolicy } : {}),
      sameSubtree: [],
      groups: out,
    },
    diagnostics,
  };
}
