import { createDiagnostic, HttpError } from '@stackspec/core';
import type { ResolvedInventory } from './inventory-file.js';

/** One REST call of a load plan. */
export interface PlanStep {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** Fill `resource_provider_generation` in the body from this provider's last known generation. */
  generationOf?: string;
}

/** Sends one request to a Placement endpoint and returns status and parsed body. */
export type PlacementSend = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: unknown }>;

/**
 * The REST calls that load an inventory into any Placement (ours or
 * OpenStack's) at microversion 1.39: custom traits and resource classes,
 * providers parents first, then inventories, aggregates and traits, then
 * allocations. Generations are filled in by {@link applyPlan} as it goes.
 */
export function inventoryPlan(inventory: ResolvedInventory): PlanStep[] {
  const steps: PlanStep[] = [];
  for (const t of inventory.customTraits) steps.push({ method: 'PUT', path: `/traits/${t}` });
  for (const c of inventory.customResourceClasses)
    steps.push({ method: 'PUT', path: `/resource_classes/${c}` });
  for (const p of inventory.providers) {
    steps.push({
      method: 'POST',
      path: '/resource_providers',
      body: { name: p.name, uuid: p.uuid, parent_provider_uuid: p.parentUuid },
    });
  }
  for (const p of inventory.providers) {
    const base = `/resource_providers/${p.uuid}`;
    if (Object.keys(p.inventories).length) {
      steps.push({
        method: 'PUT',
        path: `${base}/inventories`,
        body: { inventories: p.inventories },
        generationOf: p.uuid,
      });
    }
    if (p.aggregates.length) {
      steps.push({
        method: 'PUT',
        path: `${base}/aggregates`,
        body: { aggregates: p.aggregates },
        generationOf: p.uuid,
      });
    }
    if (p.traits.length) {
      steps.push({ method: 'PUT', path: `${base}/traits`, body: { traits: p.traits }, generationOf: p.uuid });
    }
  }
  for (const c of inventory.consumers) {
    steps.push({
      method: 'PUT',
      path: `/allocations/${c.uuid}`,
      body: {
        allocations: Object.fromEntries(
          Object.entries(c.allocations).map(([rp, resources]) => [rp, { resources }]),
        ),
        project_id: c.projectId,
        user_id: c.userId,
        consumer_generation: null,
        consumer_type: c.consumerType,
      },
    });
  }
  return steps;
}

/**
 * A failed step of {@link applyPlan}: a core `HttpError` (so
 * `isStackspecError` holds) with the status Placement answered, code
 * `placement-query/plan-step-failed`, the step and the answer's body.
 */
export class PlanStepError extends HttpError {
  readonly step: PlanStep;
  readonly body: unknown;

  constructor(step: PlanStep, status: number, body: unknown) {
    const message = `${step.method} ${step.path} answered ${status}: ${JSON.stringify(body)}`;
    super(status, message, {
      code: 'placement-query/plan-step-failed',
      diagnostics: [createDiagnostic({ code: 'placement-query/plan-step-failed', message })],
    });
    this.name = 'PlanStepError';
    this.step = step;
    this.body = body;
  }
}

/**
 * Runs a plan through `send`, tracking provider generations from each
 * answer; stops at the first status of 400 or above.
 */
export async function applyPlan(send: PlacementSend, steps: readonly PlanStep[]): Promise<void> {
  const generations = new Map<string, number>();
  for (const step of steps) {
    let body = step.body;
    if (step.generationOf)
      body = { ...body, resource_provider_generation: generations.get(step.generationOf) ?? 0 };
    const r = await send(step.method, step.path, body);
    if (r.status >= 400) throw new PlanStepError(step, r.status, r.body);
    const b = r.body as Record<string, unknown> | null;
    if (b && typeof b === 'object') {
      if (typeof b.uuid === 'string' && typeof b.generation === 'number')
        generations.set(b.uuid, b.generation);
      if (step.generationOf && typeof b.resource_provider_generation === 'number') {
        generations.set(step.generationOf, b.resource_provider_generation);
      }
    }
  }
}

/**
 * Empties a Placement through its API: every consumer's allocations,
 * providers leaves first, custom traits and custom resource classes.
 */
export async function wipePlacement(send: PlacementSend): Promise<void> {
  const list = await send('GET', '/resource_providers');
  const providers =
    (list.body as { resource_providers?: { uuid: string; parent_provider_uuid: string | null }[] })
      .resource_providers ?? [];
  const consumers = new Set<string>();
  for (const p of providers) {
    const a = await send('GET', `/resource_providers/${p.uuid}/allocations`);
    for (const c of Object.keys((a.body as { allocations?: Record<string, unknown> }).allocations ?? {}))
      consumers.add(c);
  }
  for (const c of consumers) await send('DELETE', `/allocations/${c}`);
  const parent = new Map(providers.map((p) => [p.uuid, p.parent_provider_uuid]));
  const depth = (u: string): number => {
    let d = 0;
    for (let q = parent.get(u); q; q = parent.get(q)) d += 1;
    return d;
  };
  for (const p of [...providers].sort((a, b) => depth(b.uuid) - depth(a.uuid))) {
    await send('DELETE', `/resource_providers/${p.uuid}`);
  }
  const traits = await send('GET', '/traits?name=startswith:CUSTOM_');
  for (const t of (traits.body as { traits?: string[] }).traits ?? []) await send('DELETE', `/traits/${t}`);
  const classes = await send('GET', '/resource_classes');
  for (const c of (classes.body as { resource_classes?: { name: string }[] }).resource_classes ?? []) {
    if (c.name.startsWith('CUSTOM_')) await send('DELETE', `/resource_classes/${c.name}`);
  }
}
