import { readFileSync } from 'node:fs';
import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { createPlacementHandler } from '../http/service.js';
import { parseInventory } from './inventory-file.js';
import { applyPlan, inventoryPlan, type PlacementSend, PlanStepError, wipePlacement } from './plan.js';

function send(handler: ReturnType<typeof createPlacementHandler>): PlacementSend {
  return async (method, path, body) => {
    const r = await handler(
      new Request(`http://p${path}`, {
        method,
        headers: {
          'openstack-api-version': 'placement 1.39',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }),
    );
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
}

const text = readFileSync(new URL('../fixtures/spec-example.yaml', import.meta.url), 'utf8');

describe('inventoryPlan and applyPlan', () => {
  it('rebuilds an inventory through the REST API with the same state', async () => {
    const { inventory, store } = parseInventory(text);
    const handler = createPlacementHandler();
    const steps = inventoryPlan(inventory);
    expect(steps[0]).toMatchObject({ method: 'POST', path: '/resource_providers' });
    await applyPlan(send(handler), steps);
    for (const p of store.providers()) {
      const q = handler.store.provider(p.uuid);
      expect(q?.parent?.uuid).toBe(p.parent?.uuid);
      expect([...(q?.aggregates ?? [])]).toEqual([...p.aggregates]);
      expect([...(q?.traits ?? [])]).toEqual([...p.traits]);
      expect(Object.fromEntries(q?.inventories ?? [])).toEqual(Object.fromEntries(p.inventories));
    }
  });

  it('stops at the first failing step with its answer', async () => {
    const handler = createPlacementHandler();
    const plan = [{ method: 'PUT' as const, path: '/traits/not_custom' }];
    const error = await applyPlan(send(handler), plan).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanStepError);
    expect(isStackspecError(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      code: 'placement-query/plan-step-failed',
      step: plan[0],
      body: { errors: [{ status: 400 }] },
    });
  });

  it('wipes a Placement back to its vocabulary', async () => {
    const { inventory } = parseInventory(
      `${text}\nconsumers:\n  - {uuid: 11111111-1111-4111-8111-111111111111, allocations: {numa1_1: {VCPU: 1}}}\n`,
    );
    const handler = createPlacementHandler();
    await applyPlan(send(handler), inventoryPlan(inventory));
    expect(handler.store.providerCount).toBe(8);
    await wipePlacement(send(handler));
    expect(handler.store.providerCount).toBe(0);
    expect([...handler.store.consumers()]).toEqual([]);
  });
});
