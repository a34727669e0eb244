import { type Diagnostic, isStackspecError } from '@stackspec/core';
import {
  type DeployStepsExplanation,
  type DriverStep,
  explainDeploySteps,
  type PlanTemplate,
} from '@stackspec/deploy-templates';
import {
  type ExtraSpecRegistry,
  type ValidationMode,
  validateExtraSpecs,
} from '@stackspec/extra-spec-validators';
import {
  type AggregateInfo,
  type AllocationCandidatesExplanation,
  type AllocationCandidatesRequest,
  explainAllocationCandidates,
  findAllocationCandidates,
  flavorToRequest,
  type ProviderStore,
  serializePlacementQuery,
} from '@stackspec/placement-query';
import type { CloudFlavor } from './cloud.js';

/** Everything `stackspec schedule` needs, already loaded. */
export interface ScheduleInput {
  flavor: CloudFlavor;
  store: ProviderStore;
  templates: readonly PlanTemplate[];
  driverSteps: readonly DriverStep[];
  /** Extra spec validation mode (default `strict`). */
  mode?: ValidationMode;
  /** Nova release whose catalog applies (default the newest). */
  release?: string;
  /** A registry with plugins (wins over `release`). */
  registry?: ExtraSpecRegistry;
  /** Host aggregates with metadata, for the reservation rules. */
  aggregates?: readonly AggregateInfo[];
  /** The spec's required-member prefix (e.g. `reservation:`). */
  requiredMemberPrefix?: string;
  /** The spec's default-forbidden prefixes (e.g. `['reservation:']`). */
  defaultForbiddenMemberPrefixes?: readonly string[];
  /** Keep flavors off aggregates whose `trait:T: required` metadata they do not require (Nova's isolated aggregate filtering). */
  isolateAggregates?: boolean;
  /** Pick this node (by name or uuid) among the candidates instead of the first. */
  node?: string;
  /**
   * Explain the Placement stage even when candidates are found (it is
   * always explained when none are): see {@link ScheduleResult.explanation}.
   */
  explain?: boolean;
  /**
   * Most combinations the Placement engine examines for the request (and
   * again for its explanation) before giving up (default the engine's
   * 5,000,000). Past it, the walk stops at the candidates stage with the
   * engine's `placement-query/too-many-combinations` in `candidateDiagnostics`.
   */
  maxCombinations?: number;
}

/** One compute node Placement would offer. */
export interface ScheduleCandidate {
  name: string;
  uuid: string;
  /** Provider name → resource class → amount. */
  allocations: Record<string, Record<string, number>>;
}

/** The walk from a flavor to the deploy steps of the node it lands on. */
export interface ScheduleResult {
  /** `false` when a stage failed; `stage` says which. */
  ok: boolean;
  stage: 'extra-specs' | 'request' | 'candidates' | 'node' | 'deploy-steps' | 'done';
  extraSpecs: Diagnostic[];
  request?: AllocationCandidatesRequest;
  /** The request as Placement's query string. */
  query?: string;
  requestDiagnostics: Diagnostic[];
  /**
   * Why the candidates could not be found, or could not be explained: the
   * engine's refusal of a search too large (an error that ends the walk), or
   * a warning when only the explanation gave up.
   */
  candidateDiagnostics: Diagnostic[];
  candidates: ScheduleCandidate[];
  node?: { name: string; uuid: string; traits: string[] };
  /** Required traits of the flavor: what Nova puts into the node's `instance_info.traits`. */
  instanceTraits: string[];
  /** Whether the flavor asks for a bare-metal node (only those get deploy steps). */
  bareMetal: boolean;
  plan?: DeployStepsExplanation;
  /** Ironic's validation message when the deploy steps cannot be planned. */
  planError?: { reason: string; diagnostics: Diagnostic[] };
  /**
   * Why Placement answers what it does: per constraint, how many providers
   * it kept, and the providers the constraint that left none turned away,
   * with the reason. Present when no compute node fits, or when asked.
   */
  explanation?: AllocationCandidatesExplanation;
}

function locate(d: Diagnostic, flavor: CloudFlavor): Diagnostic {
  const withFile = { ...d, file: d.file ?? flavor.file };
  if (d.line !== undefined || !flavor.document) return withFile;
  const onKey = /unknown-key|deprecated-key|invalid-key/.test(d.code);
  return { ...withFile, ...(flavor.document.locate(d.path, { key: onKey }) ?? {}) };
}

function requiredTraits(extraSpecs: Record<string, string>): string[] {
  // Nova passes every required trait of the flavor, from any request group, to Ironic.
  const out = new Set<string>();
  for (const [k, v] of Object.entries(extraSpecs)) {
    const m = /^trait([a-zA-Z0-9_-]{1,64})?:(.+)$/.exec(k);
    if (m && v === 'required') out.add(m[2] as string);
  }
  return [...out].sort();
}

/**
 * The path the specs draw together, as one pure function: validate the
 * flavor's extra specs, build the Placement request (reservation rules
 * included), evaluate it over the inventory, pick a node, and plan the
 * deploy steps its deploy templates produce. Stops at the first stage that
 * fails and says which; when no compute node fits (or `explain` is set),
 * `explanation` says which Placement constraint left none and which
 * providers it turned away.
 */
export function schedule(input: ScheduleInput): ScheduleResult {
  const result: ScheduleResult = {
    ok: false,
    stage: 'extra-specs',
    extraSpecs: [],
    requestDiagnostics: [],
    candidateDiagnostics: [],
    candidates: [],
    instanceTraits: [],
    bareMetal: false,
  };
  const flavor = input.flavor;
  const validation = validateExtraSpecs(flavor.extraSpecs, {
    mode: input.mode ?? 'strict',
    ...(input.registry ? { registry: input.registry } : input.release ? { release: input.release } : {}),
    basePath: flavor.specsPath,
  });
  result.extraSpecs = validation.diagnostics.map((d) => locate(d, flavor));
  if (!validation.ok) return result;

  result.stage = 'request';
  let request: AllocationCandidatesRequest;
  try {
    const built = flavorToRequest(
      {
        vcpus: flavor.vcpus,
        memory_mb: flavor.ram,
        root_gb: flavor.disk,
        ephemeral_gb: flavor.ephemeral,
        swap: flavor.swap,
        extra_specs: flavor.extraSpecs,
      },
      {
        limit: null,
        ...(input.aggregates ? { aggregates: input.aggregates } : {}),
        ...(input.requiredMemberPrefix ? { requiredMemberPrefix: input.requiredMemberPrefix } : {}),
        ...(input.defaultForbiddenMemberPrefixes
          ? { defaultForbiddenMemberPrefixes: input.defaultForbiddenMemberPrefixes }
          : {}),
        ...(input.isolateAggregates ? { isolateAggregates: true } : {}),
      },
    );
    request = built.request;
    result.requestDiagnostics = built.diagnostics.map((d) => locate(d, flavor));
  } catch (e) {
    const diagnostics = (e as { diagnostics?: Diagnostic[] }).diagnostics ?? [];
    result.requestDiagnostics = diagnostics.map((d) => locate(d, flavor));
    return result;
  }
  // Writing the request out runs Placement's own checks, which refuse what the
  // flavor only warns about (several numbered groups without group_policy).
  let query: string;
  try {
    query = serializePlacementQuery(request);
  } catch (e) {
    if (!isStackspecError(e)) throw e;
    result.requestDiagnostics = [
      ...result.requestDiagnostics,
      ...e.diagnostics.map((d) => locate(d, flavor)),
    ];
    return result;
  }
  result.request = request;
  result.query = query;

  result.stage = 'candidates';
  const search = input.maxCombinations === undefined ? {} : { maxCombinations: input.maxCombinations };
  let found: ReturnType<typeof findAllocationCandidates>;
  try {
    found = findAllocationCandidates(input.store, request, search);
  } catch (e) {
    // A search too large for the engine is an answer about this cloud, not a crash of the walk.
    if (!isStackspecError(e)) throw e;
    result.candidateDiagnostics = e.diagnostics;
    return result;
  }
  // One candidate per compute node: of its allocations, the one whose providers come first by name, so
  // that the walk does not depend on the order Placement lists them in (which it does not promise).
  const byNode = new Map<string, ScheduleCandidate & { key: string }>();
  for (const c of found.candidates) {
    // The node's own providers first, then shared ones, each by name.
    const entries = [...c.allocations].sort(
      ([a], [b]) =>
        Number(a.root !== c.anchor) - Number(b.root !== c.anchor) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    const allocations: Record<string, Record<string, number>> = {};
    for (const [provider, classes] of entries) allocations[provider.name] = Object.fromEntries(classes);
    const key = entries.map(([p]) => p.name).join('\u0000');
    const seen = byNode.get(c.anchor.uuid);
    if (seen && seen.key <= key) continue;
    byNode.set(c.anchor.uuid, { name: c.anchor.name, uuid: c.anchor.uuid, allocations, key });
  }
  result.candidates = [...byNode.values()]
    .map(({ key: _key, ...candidate }) => candidate)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (!result.candidates.length || input.explain) {
    const aggregateNames = new Map<string, string>();
    for (const a of input.aggregates ?? []) if (a.name) aggregateNames.set(a.uuid, a.name);
    try {
      result.explanation = explainAllocationCandidates(input.store, request, { aggregateNames, ...search });
    } catch (e) {
      if (!isStackspecError(e)) throw e;
      result.candidateDiagnostics = e.diagnostics.map((d) => ({
        ...d,
        severity: 'warning' as const,
        message: `The explanation gave up: ${d.message}`,
      }));
    }
  }
  if (!result.candidates.length) return result;

  result.stage = 'node';
  const chosen = input.node
    ? result.candidates.find((c) => c.name === input.node || c.uuid === input.node)
    : result.candidates[0];
  if (!chosen) return result;
  const provider = [...found.candidates].find((c) => c.anchor.uuid === chosen.uuid)?.anchor;
  result.node = { name: chosen.name, uuid: chosen.uuid, traits: [...(provider?.traits ?? [])].sort() };
  result.instanceTraits = requiredTraits(flavor.extraSpecs);

  // Only Ironic nodes run deploy steps: a flavor asking for a custom class and no CPUs is bare metal.
  const wanted = Object.keys(request.groups.find((g) => g.suffix === '')?.resources ?? {});
  result.bareMetal =
    wanted.some((rc) => rc.startsWith('CUSTOM_')) && !wanted.includes('VCPU') && !wanted.includes('PCPU');
  if (!result.bareMetal) {
    result.stage = 'done';
    result.ok = true;
    return result;
  }

  result.stage = 'deploy-steps';
  try {
    result.plan = explainDeploySteps({
      // Copies, so that the planner may take mutable arrays.
      driverSteps: [...input.driverSteps],
      templates: [...input.templates],
      instanceTraits: result.instanceTraits,
      nodeTraits: result.node.traits,
      nodeUuid: chosen.uuid,
    });
  } catch (e) {
    result.planError = {
      reason: e instanceof Error ? e.message : String(e),
      diagnostics: (e as { diagnostics?: Diagnostic[] }).diagnostics ?? [],
    };
    return result;
  }
  result.stage = 'done';
  result.ok = true;
  return result;
}
