import {
  createDiagnostic,
  type Diagnostic,
  isStackspecError,
  pyRepr,
  ValidationError,
  validateWithSchema,
} from '@stackspec/core';
import { z } from 'zod';
import { type IronicProfile, ironicProfile } from './profile.js';
import { clarifyDiagnostics, StepPrioritySchema } from './schema.js';

/** What a driver says about one argument of a step. */
export const DriverStepArgInfoSchema = z.object({
  description: z.string().optional(),
  required: z.boolean().optional(),
});
/** What a driver says about one argument of a step. */
export type DriverStepArgInfo = z.input<typeof DriverStepArgInfoSchema>;

/**
 * A deploy step as a node's driver reports it: `{interface, step, priority,
 * argsinfo?}` (other keys are dropped). Priority 0 means disabled by default;
 * a digit string is read as an integer.
 */
export const DriverStepSchema = z.object({
  interface: z.string(),
  step: z.string().min(1),
  priority: StepPrioritySchema,
  // An object of argument infos; catchall checks each as z.record would, at half the cost.
  argsinfo: z.object({}).catchall(DriverStepArgInfoSchema).nullable().optional(),
  abortable: z.boolean().optional(),
  requires_ramdisk: z.boolean().optional(),
});
/** A deploy step as a node's driver reports it. */
export type DriverStep = z.input<typeof DriverStepSchema>;

/**
 * A step requested by a template or by the user: `{interface, step, args?,
 * priority}`. The newest Ironic also takes `execute_on_child_nodes` (and
 * `limit_child_node_execution`) on user steps; other keys are dropped.
 */
export const RequestedStepSchema = z.object({
  interface: z.string(),
  step: z.string().min(1),
  args: z.looseObject({}).nullable().optional(),
  priority: StepPrioritySchema,
  execute_on_child_nodes: z.boolean().optional(),
  limit_child_node_execution: z.array(z.string()).optional(),
});
/** A step requested by a template or by the user. */
export type RequestedStep = z.input<typeof RequestedStepSchema>;

/** The part of a stored template the plan needs: its name and steps (other keys are dropped). */
export const PlanTemplateSchema = z.object({
  name: z.string(),
  steps: z.array(RequestedStepSchema),
});
/** The part of a stored template the plan needs. */
export type PlanTemplate = z.input<typeof PlanTemplateSchema>;

/**
 * The input of {@link planDeploySteps} without `profile` (checked by
 * {@link explainDeploySteps} before anything else; problems are a
 * `ValidationError` whose diagnostics point at `/driverSteps/0/priority`,
 * `/templates/2/steps` and so on).
 */
export const PlanInputSchema = z.object({
  driverSteps: z
    .array(DriverStepSchema)
    .describe("Every deploy step of the node's driver, enabled and disabled."),
  templates: z
    .array(PlanTemplateSchema)
    .describe('Stored templates, in storage order (by id); only those named by an instance trait are used.'),
  instanceTraits: z
    .unknown()
    .optional()
    .describe("The node's instance_info.traits (from the flavor and image). Missing or empty: no templates."),
  nodeTraits: z
    .array(z.string())
    .optional()
    .describe("The node's traits; every instance trait must be among them."),
  userSteps: z
    .array(RequestedStepSchema)
    .optional()
    .describe('Steps passed with the provision request (deploy_steps); they win over template steps.'),
  skipMissing: z
    .boolean()
    .optional()
    .describe(
      'Drop steps the driver does not (yet) report instead of failing, as Ironic does before the agent is up.',
    ),
  nodeUuid: z.string().optional().describe('Node UUID used in messages (default "the node").'),
  disallowedSteps: z
    .array(z.string())
    .optional()
    .describe("interface.step ids removed from the final list (Ironic's [api]disallow_deploy_steps)."),
});

/** Input of {@link planDeploySteps}. */
export type PlanDeployStepsOptions = z.input<typeof PlanInputSchema> & {
  /** Release whose interface ranks and rules apply (default newest). */
  profile?: IronicProfile;
};

type PlanInput = z.output<typeof PlanInputSchema>;
type Step = z.output<typeof RequestedStepSchema>;
type Driver = z.output<typeof DriverStepSchema>;

/** The options checked against {@link PlanInputSchema}, priorities as integers; throws `ValidationError`. */
function parsePlanInput(options: PlanDeployStepsOptions): PlanInput {
  const value =
    options !== null && typeof options === 'object'
      ? Object.fromEntries(Object.entries(options).filter(([k]) => k !== 'profile'))
      : options;
  const r = validateWithSchema(PlanInputSchema, value, { area: 'deploy-templates' });
  if (r.ok) return r.value;
  const diagnostics = clarifyDiagnostics(r.diagnostics, value);
  const first = diagnostics[0] as Diagnostic;
  const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : '';
  throw new ValidationError(
    `The plan input is not valid at ${first.path || 'the top level'}: ${first.message}${more}`,
    { code: 'deploy-templates/invalid-plan-input', diagnostics },
  );
}

/** One step of the plan, in execution order. */
export interface PlannedDeployStep {
  interface: string;
  step: string;
  priority: number;
  args: Record<string, unknown>;
}

/** Where a planned step came from. */
export type StepOrigin = { kind: 'driver' } | { kind: 'user' } | { kind: 'template'; template: string };

/** A planned step with its origin, from {@link explainDeploySteps}. */
export interface ExplainedDeployStep extends PlannedDeployStep {
  origin: StepOrigin;
}

/** What {@link explainDeploySteps} returns. */
export interface DeployStepsExplanation {
  steps: ExplainedDeployStep[];
  /** Names of the templates that matched an instance trait, in storage order. */
  matchedTemplates: string[];
  /** Requested steps dropped because the driver does not report them (with `skipMissing`). */
  skipped: { interface: string; step: string; origin: StepOrigin }[];
}

const RESERVED_STEPS = new Set(['power_on', 'power_off', 'reboot', 'hold', 'wait']);

const TEMPLATE_PREFIX =
  "Validation of deploy steps from deploy templates matching this node's instance traits failed. Matching deploy templates: ";
const USER_PREFIX = 'Validation of deploy steps from "deploy steps" argument failed.';

interface Problem {
  ironic: string;
  diagnostic: Diagnostic;
}

interface Requested extends Step {
  origin: StepOrigin;
  path: string;
}

function stepId(s: { interface: string; step: string }): string {
  return `${s.interface}.${s.step}`;
}

function fail(message: string, code: string, diagnostics: Diagnostic[] = []): never {
  throw new ValidationError(message, {
    code: `deploy-templates/${code}`,
    diagnostics: diagnostics.length
      ? diagnostics
      : [createDiagnostic({ code: `deploy-templates/${code}`, message })],
  });
}

function describeOrigin(origin: StepOrigin): string {
  return origin.kind === 'template'
    ? `template ${origin.template}`
    : origin.kind === 'user'
      ? 'the deploy_steps argument'
      : 'the driver';
}

function reprStep(s: Requested): string {
  const { origin: _o, path: _p, ...plain } = s;
  return pyRepr(plain);
}

function validateRequested(
  steps: Requested[],
  driver: ReadonlyMap<string, Driver>,
  skipMissing: boolean,
  profile: IronicProfile,
  skipped: DeployStepsExplanation['skipped'],
): { kept: Requested[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const kept: Requested[] = [];
  for (const s of steps) {
    // The newest Ironic leaves steps for child nodes to the API's own checks, and resolves the
    // flow steps (power_on, hold, …) itself: neither is validated nor planned.
    if (profile.release === 'latest' && (s.execute_on_child_nodes === true || RESERVED_STEPS.has(s.step))) {
      continue;
    }
    const where = `${describeOrigin(s.origin)}, step ${stepId(s)}`;
    const d = driver.get(stepId(s));
    if (!d) {
      if (skipMissing) skipped.push({ interface: s.interface, step: s.step, origin: s.origin });
      else
        problems.push({
          ironic: `node does not support this deploy step: ${reprStep(s)}`,
          diagnostic: createDiagnostic({
            code: 'deploy-templates/unsupported-step',
            path: s.path,
            message: `${where}: the node's driver has no deploy step ${stepId(s)}.`,
            hint: 'Check the driver interfaces set on the node, or remove the step from the template.',
          }),
        });
      continue;
    }
    const argsinfo = d.argsinfo ?? {};
    const args = s.args ?? {};
    const unexpected = Object.keys(args).filter((a) => !Object.hasOwn(argsinfo, a));
    if (unexpected.length) {
      const known = Object.keys(argsinfo);
      problems.push({
        ironic: `deploy step ${reprStep(s)} has these unexpected arguments: ${unexpected.join(', ')}`,
        diagnostic: createDiagnostic({
          code: 'deploy-templates/unexpected-arguments',
          path: `${s.path}/args`,
          message: `${where}: the driver does not accept the argument${unexpected.length > 1 ? 's' : ''} ${unexpected.join(', ')}.`,
          hint: known.length ? `Accepted arguments: ${known.join(', ')}.` : 'This step takes no arguments.',
        }),
      });
    }
    if (s.priority > 0) {
      const missing = Object.entries(argsinfo)
        .filter(([name, info]) => info?.required === true && !Object.hasOwn(args, name))
        .map(([name, info]) => (info?.description ? `${name} (${info.description})` : name));
      if (missing.length) {
        problems.push({
          ironic: `deploy step ${reprStep(s)} is missing these required arguments: ${missing.join(', ')}`,
          diagnostic: createDiagnostic({
            code: 'deploy-templates/missing-arguments',
            path: `${s.path}/args`,
            message: `${where}: required argument${missing.length > 1 ? 's' : ''} missing: ${missing.join(', ')}.`,
            hint: 'Add them to args, or set priority 0 to disable the step instead.',
          }),
        });
      }
      if (d.interface === 'deploy' && d.step === 'deploy') {
        problems.push({
          ironic: `deploy step ${s.step} on interface ${s.interface} is a core step and cannot be overridden by user steps. It may be disabled by setting the priority to 0`,
          diagnostic: createDiagnostic({
            code: 'deploy-templates/core-step',
            path: `${s.path}/priority`,
            message: `${where}: deploy.deploy is the core step; its priority cannot be changed, only set to 0 to disable it.`,
            hint: 'Use priority 0 or remove the step.',
          }),
        });
      }
    }
    kept.push(s);
  }
  const counts = new Map<string, Requested[]>();
  for (const s of kept) counts.set(stepId(s), [...(counts.get(stepId(s)) ?? []), s]);
  const dups = [...counts.entries()].filter(([, list]) => list.length > 1);
  if (dups.length) {
    problems.push({
      ironic: `deploy steps from all deploy templates matching this node's instance traits cannot have the same interface and step. Duplicate deploy steps for ${dups.map(([id]) => id).join(', ')}`,
      diagnostic: createDiagnostic({
        code: 'deploy-templates/duplicate-step',
        path: dups[0]?.[1][1]?.path ?? '',
        message: `The same deploy step is requested more than once: ${dups
          .map(([id, list]) => `${id} by ${list.map((s) => describeOrigin(s.origin)).join(' and ')}`)
          .join('; ')}.`,
        hint: 'Each interface.step may appear once across all matching templates; merge the arguments into one step.',
      }),
    });
  }
  return { kept, problems };
}

function checkTraits(options: PlanInput, node: string): string[] {
  const raw = options.instanceTraits;
  if (raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0)) return [];
  if (!Array.isArray(raw) || raw.some((t) => typeof t !== 'string')) {
    fail(
      `Error parsing traits from Node ${node} instance_info field. A list of strings is expected.`,
      'invalid-instance-traits',
    );
  }
  const traits = raw as string[];
  if (options.nodeTraits) {
    const have = new Set(options.nodeTraits);
    const missing = [...new Set(traits.filter((t) => !have.has(t)))];
    if (missing.length) {
      fail(
        `Cannot specify instance traits that are not also set on the node. Node ${node} is missing traits ${missing.join(', ')}`,
        'missing-node-traits',
      );
    }
  }
  return traits;
}

function raise(prefix: string, problems: Problem[]): never {
  fail(
    prefix + problems.map((p) => p.ironic).join('; '),
    'plan-invalid',
    problems.map((p) => p.diagnostic),
  );
}

/**
 * Like {@link planDeploySteps}, and also says where each step came from,
 * which templates matched and which steps were skipped as missing.
 */
export function explainDeploySteps(options: PlanDeployStepsOptions): DeployStepsExplanation {
  const profile = options?.profile ?? ironicProfile();
  const input = parsePlanInput(options);
  const node = input.nodeUuid ?? 'the node';
  const rank = profile.interfaceRank;
  for (const [i, d] of input.driverSteps.entries()) {
    if (!Object.hasOwn(rank, d.interface)) {
      fail(
        `Driver step ${i} (${d.interface}.${d.step}) names the interface ${d.interface}, which is not a deploy interface (${profile.interfaces.join(', ')}).`,
        'invalid-driver-step',
        [
          createDiagnostic({
            code: 'deploy-templates/invalid-driver-step',
            path: `/driverSteps/${i}/interface`,
            message: `The driver step ${d.interface}.${d.step} names an interface that has no deploy steps.`,
          }),
        ],
      );
    }
  }
  // Ironic collects driver steps interface by interface (in rank order) and,
  // within an interface, by method name.
  const interfaceOrder = new Map(profile.interfaces.map((name, i) => [name, i]));
  const driverSteps = [...input.driverSteps].sort(
    (a, b) =>
      (interfaceOrder.get(a.interface) ?? 0) - (interfaceOrder.get(b.interface) ?? 0) ||
      (a.step < b.step ? -1 : a.step > b.step ? 1 : 0),
  );
  const byId = new Map<string, Driver>();
  for (const d of driverSteps) byId.set(stepId(d), d);

  const traits = checkTraits(input, node);
  const wanted = new Set(traits);
  const matched = traits.length
    ? input.templates.map((t, i) => ({ t, i })).filter(({ t }) => wanted.has(t.name))
    : [];
  const skipped: DeployStepsExplanation['skipped'] = [];

  const templateSteps: Requested[] = matched.flatMap(({ t, i }) =>
    t.steps.map((s, j) => ({
      interface: s.interface,
      step: s.step,
      args: { ...(s.args ?? {}) },
      priority: s.priority,
      origin: { kind: 'template' as const, template: t.name },
      path: `/templates/${i}/steps/${j}`,
    })),
  );
  const templateCheck = validateRequested(templateSteps, byId, input.skipMissing === true, profile, skipped);
  if (templateCheck.problems.length) {
    raise(`${TEMPLATE_PREFIX}${matched.map(({ t }) => t.name).join(',')}. Errors: `, templateCheck.problems);
  }
  const userSteps: Requested[] = (input.userSteps ?? []).map((s, j) => ({
    ...s,
    args: { ...(s.args ?? {}) },
    origin: { kind: 'user' as const },
    path: `/userSteps/${j}`,
  }));
  const userCheck = userSteps.length
    ? validateRequested(userSteps, byId, input.skipMissing === true, profile, skipped)
    : { kept: [], problems: [] };
  if (userCheck.problems.length) raise(USER_PREFIX, userCheck.problems);

  const userIds = new Set(userCheck.kept.map(stepId));
  const requested = [...userCheck.kept, ...templateCheck.kept.filter((s) => !userIds.has(stepId(s)))];
  const requestedIds = new Set(requested.map(stepId));
  const merged: ExplainedDeployStep[] = [
    ...driverSteps
      .filter((d) => d.priority !== 0 && !requestedIds.has(stepId(d)))
      .map((d) => ({
        interface: d.interface,
        step: d.step,
        priority: d.priority,
        args: {},
        origin: { kind: 'driver' as const },
      })),
    ...requested
      .filter((s) => s.priority > 0)
      .map((s) => ({
        interface: s.interface,
        step: s.step,
        priority: s.priority,
        args: { ...(s.args ?? {}) },
        origin: s.origin,
      })),
  ];
  // Array.prototype.sort is stable, like Python's sorted(reverse=True).
  merged.sort((a, b) => b.priority - a.priority || (rank[b.interface] ?? 0) - (rank[a.interface] ?? 0));
  const disallowed = new Set(input.disallowedSteps ?? []);
  const steps = disallowed.size ? merged.filter((s) => !disallowed.has(stepId(s))) : merged;
  if (!steps.length) fail(`no steps returned for node ${node}`, 'no-steps');
  return { steps, matchedTemplates: matched.map(({ t }) => t.name), skipped };
}

/**
 * The deploy steps a node will run, in order, given its driver's steps, the
 * stored templates and the traits requested for the instance — Ironic's
 * conductor algorithm:
 *
 * 1. templates whose name equals an instance trait are selected (storage
 *    order); traits without a template are ignored;
 * 2. their steps, and any user steps, are validated against every driver
 *    step: unknown steps, unexpected or missing arguments, changing the
 *    core `deploy.deploy` step, and the same `interface.step` twice are
 *    errors (all collected, joined with `; `); with `skipMissing` unknown
 *    steps are dropped instead;
 * 3. user steps beat template steps; a requested step replaces the driver's
 *    step of the same `interface.step` (so priority 0 disables it);
 * 4. enabled steps are sorted by priority, then interface rank (stable:
 *    driver, then user, then template steps on a full tie).
 *
 * Throws core's `ValidationError` (400) whose message is Ironic's and whose
 * diagnostics name the template (`/templates/<i>/steps/<j>`) and step at
 * fault (codes `deploy-templates/unsupported-step`, `…/unexpected-arguments`,
 * `…/missing-arguments`, `…/core-step`, `…/duplicate-step`,
 * `…/invalid-instance-traits`, `…/missing-node-traits`, `…/no-steps`).
 *
 * @example
 * planDeploySteps({
 *   driverSteps: [{ interface: 'deploy', step: 'deploy', priority: 100 },
 *                 { interface: 'raid', step: 'create_configuration', priority: 0,
 *                   argsinfo: { logical_disks: { required: true } } }],
 *   templates: [{ name: 'CUSTOM_RAID1', steps: [{ interface: 'raid', step: 'create_configuration',
 *                 args: { logical_disks: [] }, priority: 10 }] }],
 *   instanceTraits: ['CUSTOM_RAID1'],
 * });
 * // [{ interface: 'deploy', step: 'deploy', priority: 100, args: {} },
 * //  { interface: 'raid', step: 'create_configuration', priority: 10, args: { logical_disks: [] } }]
 */
export function planDeploySteps(options: PlanDeployStepsOptions): PlannedDeployStep[] {
  return explainDeploySteps(options).steps.map(({ interface: iface, step, priority, args }) => ({
    interface: iface,
    step,
    priority,
    args,
  }));
}

/** Outcome of {@link validateNodeDeploySteps}. */
export type NodeDeployValidation =
  | { ok: true; steps: PlannedDeployStep[]; reason: null; diagnostics: Diagnostic[] }
  | { ok: false; steps?: undefined; reason: string; diagnostics: Diagnostic[] };

/**
 * Node validation for deploy templates, without throwing: `ok` with the
 * plan, or `reason` (Ironic's message, what `GET /v1/nodes/{node}/validate`
 * shows under `deploy.reason`) and the diagnostics naming each template and
 * step at fault. Same options as {@link planDeploySteps}; note that Ironic
 * itself validates nodes with `skipMissing: true`, deferring unknown steps
 * until the agent reports its in-band steps.
 */
export function validateNodeDeploySteps(options: PlanDeployStepsOptions): NodeDeployValidation {
  try {
    return { ok: true, steps: planDeploySteps(options), reason: null, diagnostics: [] };
  } catch (e) {
    if (isStackspecError(e)) return { ok: false, reason: e.message, diagnostics: [...e.diagnostics] };
    throw e;
  }
}
