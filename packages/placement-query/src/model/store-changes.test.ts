import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dumpStore } from '../../test/support/dump-store.js';
import type { PlacementChange } from './changes.js';
import { createProviderStore, INVENTORY_DEFAULTS, type ProviderStore } from './store.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

type Op = (s: ProviderStore) => unknown;

const CLASSES = ['VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_A', 'CUSTOM_B'];
const TRAITS = ['HW_CPU_X86_AVX', 'CUSTOM_T1', 'CUSTOM_T2', 'MISC_SHARES_VIA_AGGREGATE'];
const id = fc.integer({ min: 1, max: 6 });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.tuple(id, fc.option(id, { nil: undefined }), fc.constantFrom('a', 'b', 'c', 'd')).map(
    ([n, parent, name]) =>
      (s: ProviderStore) =>
        s.createProvider({ name: `${name}${n}`, uuid: U(n), parentUuid: parent ? U(parent) : null }),
  ),
  fc.tuple(id, fc.option(fc.option(id, { nil: null }), { nil: undefined }), fc.boolean()).map(
    ([n, parent, rename]) =>
      (s: ProviderStore) =>
        s.updateProvider(
          U(n),
          {
            ...(rename ? { name: `renamed${n}` } : {}),
            ...(parent !== undefined ? { parentUuid: parent === null ? null : U(parent) } : {}),
          },
          { allowReparenting: true },
        ),
  ),
  id.map((n) => (s: ProviderStore) => s.deleteProvider(U(n))),
  fc.tuple(id, fc.subarray(CLASSES), fc.integer({ min: 1, max: 8 })).map(
    ([n, classes, total]) =>
      (s: ProviderStore) =>
        s.setInventories(
          U(n),
          Object.fromEntries(classes.map((rc) => [rc, { ...INVENTORY_DEFAULTS, total }])),
        ),
  ),
  fc.tuple(id, fc.subarray(TRAITS)).map(
    ([n, traits]) =>
      (s: ProviderStore) =>
        s.setTraits(U(n), traits),
  ),
  fc.tuple(id, fc.subarray([U(90), U(91), U(92)])).map(
    ([n, aggs]) =>
      (s: ProviderStore) =>
        s.setAggregates(U(n), aggs),
  ),
  fc
    .tuple(
      fc.integer({ min: 100, max: 103 }),
      fc.array(fc.tuple(id, fc.constantFrom(...CLASSES), fc.integer({ min: 0, max: 4 })), { maxLength: 3 }),
      fc.boolean(),
    )
    .map(([c, list, bump]) => (s: ProviderStore) => {
      const allocations: Record<string, Record<string, number>> = {};
      for (const [n, rc, amount] of list) allocations[U(n)] = { ...allocations[U(n)], [rc]: amount };
      return s.setAllocations(
        U(c),
        allocations,
        { projectId: 'p', userId: 'u', consumerType: 'INSTANCE' },
        bump,
      );
    }),
  fc.integer({ min: 100, max: 103 }).map((c) => (s: ProviderStore) => s.deleteAllocations(U(c))),
  fc.constantFrom('CUSTOM_T1', 'CUSTOM_T2').map((t) => (s: ProviderStore) => s.createTrait(t)),
  fc.constantFrom('CUSTOM_T1', 'CUSTOM_T2').map((t) => (s: ProviderStore) => s.deleteTrait(t)),
  fc.constantFrom('CUSTOM_A', 'CUSTOM_B').map((rc) => (s: ProviderStore) => s.createResourceClass(rc)),
  fc.constantFrom('CUSTOM_A', 'CUSTOM_B').map((rc) => (s: ProviderStore) => s.deleteResourceClass(rc)),
  fc.tuple(fc.constantFrom('CUSTOM_A', 'CUSTOM_B'), fc.constantFrom('CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C')).map(
    ([from, to]) =>
      (s: ProviderStore) =>
        s.renameResourceClass(from, to),
  ),
);

function outcome(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (isStackspecError(e)) return `${e.status} ${e.message}`;
    throw e;
  }
}

// A fixed clock: the direct store and the staged one must stamp the same times.
const clock = () => new Date(Date.UTC(2026, 0, 1));

describe('ProviderStore changes', () => {
  it('a staged write changes nothing, and its changes applied elsewhere give the same store', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
        const direct = createProviderStore({ clock });
        const staged = createProviderStore({ clock });
        const follower = createProviderStore({ clock });
        for (const op of ops) {
          const expected = outcome(() => op(direct));
          const before = dumpStore(staged);
          let changes: PlacementChange[] = [];
          const got = outcome(() => {
            changes = staged.stage((s) => op(s)).changes;
          });
          expect(got).toBe(expected);
          // Staging alone leaves the store as it was, whatever happened.
          expect(dumpStore(staged)).toEqual(before);
          staged.applyChanges(changes);
          follower.applyChanges(changes);
          // Applying the same change twice in a row does nothing more.
          follower.applyChanges(changes);
          expect(dumpStore(staged)).toEqual(dumpStore(direct));
        }
        expect(dumpStore(follower)).toEqual(dumpStore(direct));
      }),
      { numRuns: 300 },
    );
  });

  it('rebuilds a store from the states of its providers and consumers, in any order', () => {
    const s = createProviderStore({ clock });
    s.createProvider({ name: 'root', uuid: U(1) });
    s.createProvider({ name: 'child', uuid: U(2), parentUuid: U(1) });
    s.createProvider({ name: 'other', uuid: U(3) });
    s.updateProvider(U(1), { parentUuid: U(3) }, { allowReparenting: true });
    s.createTrait('CUSTOM_T1');
    s.setInventories(U(2), { VCPU: { ...INVENTORY_DEFAULTS, total: 4 } });
    s.setTraits(U(2), ['CUSTOM_T1']);
    s.setAllocations(U(100), { [U(2)]: { VCPU: 3 } }, { projectId: 'p', userId: 'u' });
    const changes: PlacementChange[] = [
      ...[...s.consumers()].map((c) => ({
        type: 'consumer' as const,
        uuid: c.uuid,
        state: s.consumerState(c),
      })),
      ...[...s.providers()]
        .reverse()
        .map((p) => ({ type: 'provider' as const, uuid: p.uuid, state: s.providerState(p) })),
      { type: 'trait', name: 'CUSTOM_T1', createdAt: clock().toISOString() },
    ];
    const copy = createProviderStore({ clock });
    copy.applyChanges(changes);
    expect(dumpStore(copy)).toEqual(dumpStore(s));
    copy.reset();
    expect(dumpStore(copy)).toEqual(dumpStore(createProviderStore({ clock })));
  });

  it('keeps providers in id order when one arrives numbered below the newest', () => {
    const s = createProviderStore({ clock });
    const at = clock().toISOString();
    const state = (id: number, n: number) => ({
      id,
      uuid: U(n),
      name: `p${n}`,
      parentUuid: null,
      generation: 0,
      inventories: {},
      traits: [],
      aggregates: [],
      createdAt: at,
      updatedAt: at,
    });
    s.applyChanges([{ type: 'provider', uuid: U(2), state: state(8, 2) }]);
    s.applyChanges([{ type: 'provider', uuid: U(1), state: state(7, 1) }]);
    expect([...s.providers()].map((p) => p.id)).toEqual([7, 8]);
    s.applyChanges([{ type: 'provider', uuid: U(3), state: { ...state(5, 3), parentUuid: U(2) } }]);
    s.applyChanges([{ type: 'provider', uuid: U(4), state: { ...state(6, 4), parentUuid: U(2) } }]);
    expect([...s.providers()].map((p) => p.id)).toEqual([5, 6, 7, 8]);
    expect(s.treeOf(s.requireProvider(U(2))).map((p) => p.id)).toEqual([8, 5, 6]);
    // A new provider gets the next id above all of them.
    expect(s.createProvider({ name: 'new', uuid: U(9) }).id).toBe(9);
  });
});
