import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { canAllocate, capacityOf, createProviderStore, INVENTORY_DEFAULTS } from './store.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function error(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    if (isStackspecError(e)) return { status: e.status, code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected an error');
}

describe('ProviderStore', () => {
  it('keeps trees, indexes and generations consistent', () => {
    const s = createProviderStore();
    const cn = s.createProvider({ name: 'cn', uuid: U(1) });
    const numa = s.createProvider({ name: 'numa', uuid: U(2), parentUuid: U(1) });
    expect(s.hasTrees).toBe(true);
    expect(numa.root).toBe(cn);
    s.setInventories(U(2), { VCPU: { ...INVENTORY_DEFAULTS, total: 4 } }, 0);
    expect(numa.generation).toBe(1);
    expect([...s.withInventory('VCPU')]).toEqual([numa]);
    s.setAggregates(U(1), [U(9)]);
    expect([...s.inAggregate(U(9))]).toEqual([cn]);
    s.setAggregates(U(1), []);
    expect(s.inAggregate(U(9)).size).toBe(0);
  });

  it('answers a stale generation with 409 concurrent_update', () => {
    const s = createProviderStore();
    s.createProvider({ name: 'cn', uuid: U(1) });
    expect(error(() => s.setTraits(U(1), ['HW_CPU_X86_AVX'], 5))).toMatchObject({
      status: 409,
      code: 'placement.concurrent_update',
      message: 'resource provider generation conflict',
    });
  });

  it('refuses duplicate names, unknown parents and deleting parents or used providers', () => {
    const s = createProviderStore();
    s.createProvider({ name: 'cn', uuid: U(1) });
    expect(error(() => s.createProvider({ name: 'cn', uuid: U(2) }))).toMatchObject({
      status: 409,
      message: 'Conflicting resource provider name: cn already exists.',
    });
    expect(error(() => s.createProvider({ name: 'x', uuid: U(3), parentUuid: U(7) })).message).toMatch(
      /parent provider UUID does not exist\.$/,
    );
    s.createProvider({ name: 'child', uuid: U(4), parentUuid: U(1) });
    expect(error(() => s.deleteProvider(U(1)))).toMatchObject({
      status: 409,
      code: 'placement.resource_provider.cannot_delete_parent',
    });
    s.setInventories(U(4), { VCPU: { ...INVENTORY_DEFAULTS, total: 2 } });
    s.setAllocations(U(100), { [U(4)]: { VCPU: 2 } }, { projectId: 'p', userId: 'u' });
    expect(error(() => s.deleteProvider(U(4)))).toMatchObject({
      status: 409,
      code: 'placement.resource_provider.inuse',
    });
    expect(error(() => s.setInventories(U(4), {}))).toMatchObject({
      status: 409,
      code: 'placement.inventory.inuse',
    });
  });

  it('checks allocations against capacity and unit constraints, freeing the old ones first', () => {
    const s = createProviderStore();
    s.createProvider({ name: 'cn', uuid: U(1) });
    s.setInventories(U(1), { VCPU: { ...INVENTORY_DEFAULTS, total: 4, step_size: 2 } });
    s.setAllocations(U(100), { [U(1)]: { VCPU: 4 } }, { projectId: 'p', userId: 'u' });
    s.setAllocations(U(100), { [U(1)]: { VCPU: 2 } }, { projectId: 'p', userId: 'u' });
    expect(s.provider(U(1))?.usages.get('VCPU')).toBe(2);
    expect(
      error(() => s.setAllocations(U(101), { [U(1)]: { VCPU: 4 } }, { projectId: 'p', userId: 'u' })).message,
    ).toMatch(/exceed the capacity/);
    expect(
      error(() => s.setAllocations(U(101), { [U(1)]: { VCPU: 1 } }, { projectId: 'p', userId: 'u' })).message,
    ).toMatch(/violate inventory constraints/);
    s.deleteAllocations(U(100));
    expect(s.provider(U(1))?.usages.size).toBe(0);
    expect(error(() => s.deleteAllocations(U(100))).status).toBe(404);
  });

  it('re-parents only when allowed and never into a loop', () => {
    const s = createProviderStore();
    s.createProvider({ name: 'a', uuid: U(1) });
    s.createProvider({ name: 'b', uuid: U(2), parentUuid: U(1) });
    s.createProvider({ name: 'c', uuid: U(3) });
    expect(error(() => s.updateProvider(U(2), { parentUuid: U(3) })).message).toMatch(/re-parenting/);
    expect(
      error(() => s.updateProvider(U(1), { parentUuid: U(2) }, { allowReparenting: true })).message,
    ).toMatch(/loop/);
    s.updateProvider(U(2), { parentUuid: null }, { allowReparenting: true });
    expect(s.provider(U(2))?.root.uuid).toBe(U(2));
    expect(s.hasTrees).toBe(false);
  });

  it("manages custom traits and classes with Placement's refusals", () => {
    const s = createProviderStore();
    expect(s.createTrait('CUSTOM_X')).toBe(true);
    expect(s.createTrait('CUSTOM_X')).toBe(false);
    expect(error(() => s.createTrait('lower')).status).toBe(400);
    expect(error(() => s.deleteTrait('HW_CPU_X86_AVX')).status).toBe(400);
    s.createProvider({ name: 'a', uuid: U(1) });
    s.setTraits(U(1), ['CUSTOM_X']);
    expect(error(() => s.deleteTrait('CUSTOM_X')).status).toBe(409);
    expect(s.createResourceClass('CUSTOM_FPGA')).toBe(true);
    expect(error(() => s.deleteResourceClass('VCPU')).status).toBe(400);
    expect(error(() => s.deleteResourceClass('CUSTOM_NOPE')).status).toBe(404);
  });

  it('computes capacity and fit as Placement does', () => {
    const inv = { ...INVENTORY_DEFAULTS, total: 10, reserved: 1, allocation_ratio: 1.5, max_unit: 8 };
    expect(capacityOf(inv)).toBe(13);
    expect(canAllocate(inv, 5, 8)).toBe(true);
    expect(canAllocate(inv, 6, 8)).toBe(false);
    expect(canAllocate(inv, 0, 9)).toBe(false);
  });
});
