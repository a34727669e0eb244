import {
  createDiagnostic,
  type Diagnostic,
  isStackspecError,
  isStandardResourceClass,
  pyInt,
  pySortedSet,
  ValidationError,
} from '@stackspec/core';
import { z } from 'zod';
import { toMicroversion, versionText } from './microversion.js';
import {
  cpuPolicy,
  cpuThreadPolicy,
  dedicatedCpus,
  emulatorThreadsPolicy,
  type ImageProperties,
  ImagePropertiesSchema,
  imageTraits,
  memoryEncryption,
  pciNumaPolicy,
  pmemResources,
  realtimeCpus,
  secureBootRequired,
  tpmTrait,
} from './nova-hardware.js';
import { parseMemberOfValue } from './parse.js';
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
  /**
   * The image's properties that change the request (see
   * `ImagePropertiesSchema`): `traits_required`, CPU and thread policies,
   * the realtime mask, memory encryption with its firmware and machine type,
   * vTPM, secure boot and PCI NUMA affinity.
   */
  image?: z.input<typeof ImagePropertiesSchema>;
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

interface Group {
  resources: Map<string, number>;
  required: Set<string>;
  forbidden: Set<string>;
  memberOf: string[][];
  forbiddenAggs: Set<string>;
}

function invalidInput(
  what: 'flavor' | 'image',
  issue: z.core.$ZodIssue | undefined,
  base: string,
): ValidationError {
  const where = issue?.path.join('.') || what;
  const message = `The ${what} is not valid: ${where} ${issue?.message ?? ''}`.trim();
  return new ValidationError(message, {
    code: `placement-query/invalid-${what}`,
    diagnostics: [
      createDiagnostic({
        code: `placement-query/invalid-${what}`,
        message,
        path: issue
          ? `${base}/${issue.path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`
          : base,
      }),
    ],
  });
}

function pointer(key: string): string {
  return `/extra_specs/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * Turns a flavor (and optionally image properties and aggregate metadata)
 * into a `GET /allocation_candidates` request the way Nova's scheduler
 * (Zed, Debian 12) builds it: `resources[$S]:RC=N` overrides the flavor's
 * VCPU, MEMORY_MB and DISK_GB (0 removes a class), `trait[$S]:T=required|forbidden`,
 * `group_policy`, image traits, CPU pinning (`hw:cpu_policy=dedicated` asks
 * for PCPU; `mixed` splits the vCPUs by `hw:cpu_dedicated_mask` or the
 * realtime mask; `hw:emulator_threads_policy=isolate` adds a PCPU;
 * `hw:cpu_thread_policy` requires or forbids HW_CPU_HYPERTHREADING), memory
 * encryption, `hw:pmem` namespaces, vTPM, PCI NUMA `socket` affinity and
 * secure boot traits, and Nova's isolated-aggregate filtering; plus
 * `member_of[$S]` extra specs in Placement's syntax (an extension Nova
 * lacks) and the spec's reservation flow (required-member and
 * default-forbidden prefixes over aggregate metadata). An oracle test
 * checks the result against Nova's own code.
 *
 * Entries Nova skips with a log line (an unknown resource class, a
 * negative amount, a trait value other than required/forbidden, an invalid
 * group_policy) come back as warnings, as do groups Placement will refuse
 * (two numbered groups without group_policy, a numbered group without
 * resources). Throws a `ValidationError` where Nova's API refuses the
 * flavor and image (`placement-query/flavor/invalid-hardware`: an unknown CPU policy, a bad
 * mask, flavor and image in conflict, memory encryption without a UEFI
 * image…), for a malformed flavor or image (`placement-query/invalid-flavor`,
 * `placement-query/invalid-image`), and with
 * `placement-query/unknown-reservation` when the flavor names a reservation
 * no aggregate carries (nothing could ever match).
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
  if (!parsed.success) throw invalidInput('flavor', parsed.error.issues[0], '');
  const image = ImagePropertiesSchema.safeParse(options.image ?? {});
  if (!image.success) throw invalidInput('image', image.error.issues[0], '/image');
  const f = parsed.data;
  const img: ImageProperties = image.data;
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
          'placement-query/flavor/invalid-group-policy',
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
          'placement-query/flavor/invalid-resource-class',
          `Received an invalid ResourceClass '${name}' in extra_specs.`,
        );
        continue;
      }
      const amount = pyInt(value);
      if (!amount.ok || amount.value < 0n) {
        warn(
          key,
          'placement-query/flavor/invalid-amount',
          `Resource amounts must be nonnegative integers. Received '${value}'`,
        );
        continue;
      }
      group(suffix).resources.set(name, Number(amount.value));
    } else if (prefix === 'trait') {
      if (value === 'required') group(suffix).required.add(name);
      else if (value === 'forbidden') group(suffix).forbidden.add(name);
      else
        warn(
          key,
          'placement-query/flavor/invalid-trait-value',
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
        warn(key, 'placement-query/flavor/invalid-member-of', e.message);
      }
    }
  }
  const suffixedFromFlavor = [...groups.keys()].filter((s) => s !== '').length;

  // Image traits join the unsuffixed group.
  for (const t of imageTraits(img)) group('').required.add(t);

  // CPU pinning: dedicated asks for PCPU instead of VCPU; mixed splits the
  // flavor's vCPUs by the dedicated (or realtime) mask.
  const policy = cpuPolicy(specs, img);
  const threads = cpuThreadPolicy(specs, img);
  const emulator = emulatorThreadsPolicy(specs);
  if (policy === 'dedicated' || policy === 'mixed') {
    let pcpus = f.vcpus;
    if (policy === 'mixed') {
      const dedicated = dedicatedCpus(specs, f.vcpus);
      const realtime = realtimeCpus(specs, img, f.vcpus);
      pcpus = (dedicated ?? realtime)?.size ?? 0;
      group('').resources.set('VCPU', f.vcpus - pcpus);
    }
    if (emulator === 'isolate') pcpus += 1;
    group('').resources.set('PCPU', pcpus);
  }
  if (threads === 'isolate') group('').forbidden.add('HW_CPU_HYPERTHREADING');
  if (threads === 'require') group('').required.add('HW_CPU_HYPERTHREADING');

  // The flavor's own sizes, unless some group already names the class.
  const named = new Set<string>();
  for (const g of groups.values()) for (const rc of g.resources.keys()) named.add(rc);
  if (!named.has('VCPU') && !named.has('PCPU')) group('').resources.set('VCPU', f.vcpus);
  if (!named.has('MEMORY_MB')) group('').resources.set('MEMORY_MB', f.memory_mb);
  if (!named.has('DISK_GB')) {
    const disk = f.ephemeral_gb + Math.ceil(f.swap / 1024) + (f.is_bfv ? 0 : f.root_gb);
    if (disk) group('').resources.set('DISK_GB', disk);
  }

  // Devices and security features, in Nova's order.
  if (memoryEncryption(specs, img)) group('').resources.set('MEM_ENCRYPTION_CONTEXT', 1);
  for (const [rc, n] of pmemResources(specs)) group('').resources.set(rc, n);
  const tpm = tpmTrait(specs, img);
  if (tpm) group('').required.add(tpm);
  if (pciNumaPolicy(specs, img) === 'socket') group('').required.add('COMPUTE_SOCKET_PCI_NUMA_AFFINITY');
  if (secureBootRequired(specs, img)) group('').required.add('COMPUTE_SECURITY_UEFI_SECURE_BOOT');

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
    if (suffix !== '' && !Object.keys(resources).length) {
      // Nova sends such a group with an empty `resources$S`, which Placement refuses.
      diagnostics.push(
        createDiagnostic({
          code: 'placement-query/flavor/resourceless-group',
          severity: 'warning',
          message: `The request group ${suffix} asks for traits or aggregates but no resources; Placement will refuse the query.`,
          path: pointer(`resources${suffix}`),
          hint: `add resources${suffix}:<CLASS>=<N>, or move the group's traits to the unsuffixed group`,
        }),
      );
    }
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
          code: 'placement-query/flavor/missing-group-policy',
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
