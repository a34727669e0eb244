// The behaviour every PlacementStore must have, through the HTTP API it
// serves. Each adapter's test file calls describePlacementStoreContract with
// a factory of "databases": each gives servers (stores, opened) over one
// fresh database, so that the suite can run two servers side by side and
// restart one. An adapter without a database (memory) skips what needs one.
import { afterEach, describe, expect, it } from 'vitest';
import { createPlacementHandler, type PlacementHandler } from '../src/http/service.js';
import type { PlacementStore } from '../src/store/types.js';
import { dumpStore } from './support/dump-store.js';
import { placementRequest } from './support/placement-api.js';

/** One fresh database, and servers on it. */
export interface ContractDatabase {
  /** An opened store on this database (a new server: its memory read from the database). */
  server(): Promise<PlacementStore>;
  /** Whether several servers may share this database (and follow each other's writes). */
  shared: boolean;
  /** Whether a server opened after another closed finds what the first wrote. */
  durable: boolean;
  /** Drops the database (after every server was closed). */
  drop(): Promise<void>;
}

export type ContractFactory = () => Promise<ContractDatabase>;

const RP = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const CONSUMER = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;
const AGG = '33333333-3333-4333-8333-333333333333';

interface Reply {
  status: number;
  body: Record<string, unknown> & { errors?: { code?: string; detail: string }[] };
}

function client(handler: PlacementHandler) {
  return async (method: string, path: string, body?: unknown, version = '1.39'): Promise<Reply> => {
    const r = await handler(placementRequest(method, path, body, version));
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : {} };
  };
}

type Send = ReturnType<typeof client>;

/** Waits until `check` holds, reading again as the server catches up (bounded). */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A compute node with inventory, a trait, an aggregate and a child. */
async function buildCloud(send: Send): Promise<void> {
  expect((await send('POST', '/resource_providers', { name: 'cn1', uuid: RP(1) })).status).toBe(200);
  expect(
    (await send('POST', '/resource_providers', { name: 'numa0', uuid: RP(2), parent_provider_uuid: RP(1) }))
      .status,
  ).toBe(200);
  expect(
    (
      await send('PUT', `/resource_providers/${RP(1)}/inventories`, {
        resource_provider_generation: 0,
        inventories: { MEMORY_MB: { total: 4096, reserved: 512 }, DISK_GB: { total: 100 } },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await send('PUT', `/resource_providers/${RP(2)}/inventories`, {
        resource_provider_generation: 0,
        inventories: { VCPU: { total: 4, allocation_ratio: 2.0 } },
      })
    ).status,
  ).toBe(200);
  expect((await send('PUT', '/traits/CUSTOM_GOLD')).status).toBe(201);
  expect(
    (
      await send('PUT', `/resource_providers/${RP(1)}/traits`, {
        resource_provider_generation: 1,
        traits: ['CUSTOM_GOLD', 'HW_CPU_X86_AVX2'],
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await send('PUT', `/resource_providers/${RP(1)}/aggregates`, {
        resource_provider_generation: 2,
        aggregates: [AGG],
      })
    ).status,
  ).toBe(200);
  expect((await send('POST', '/resource_classes', { name: 'CUSTOM_FPGA' })).status).toBe(201);
  expect(
    (
      await send('PUT', `/allocations/${CONSUMER(1)}`, {
        allocations: { [RP(1)]: { resources: { MEMORY_MB: 1024 } }, [RP(2)]: { resources: { VCPU: 2 } } },
        project_id: 'p1',
        user_id: 'u1',
        consumer_generation: null,
        consumer_type: 'INSTANCE',
      })
    ).status,
  ).toBe(204);
}

/** What a client can read of the cloud, for comparing two servers or a server before and after a restart. */
async function readAll(send: Send): Promise<unknown> {
  const list = (await send('GET', '/resource_providers')).body.resource_providers as { uuid: string }[];
  const out: Record<string, unknown> = { list };
  for (const { uuid } of list) {
    for (const part of ['inventories', 'usages', 'traits', 'aggregates', 'allocations']) {
      out[`${uuid}/${part}`] = (await send('GET', `/resource_providers/${uuid}/${part}`)).body;
    }
  }
  out.consumer = (await send('GET', `/allocations/${CONSUMER(1)}`)).body;
  out.usages = (await send('GET', '/usages?project_id=p1')).body;
  out.traits = (await send('GET', '/traits?name=startswith:CUSTOM_')).body;
  out.classes = (await send('GET', '/resource_classes')).body;
  out.candidates = (await send('GET', '/allocation_candidates?resources=VCPU:1,MEMORY_MB:512')).body;
  return out;
}

export function describePlacementStoreContract(name: string, factory: ContractFactory): void {
  describe(`${name} PlacementStore contract`, () => {
    const servers: PlacementStore[] = [];
    const databases: ContractDatabase[] = [];
    const database = async () => {
      const db = await factory();
      databases.push(db);
      return db;
    };
    const serve = async (db: ContractDatabase) => {
      const placement = await db.server();
      servers.push(placement);
      const handler = createPlacementHandler({ placement });
      return { placement, handler, send: client(handler) };
    };
    afterEach(async () => {
      for (const s of servers.splice(0)) await s.close();
      for (const db of databases.splice(0)) await db.drop();
    });

    it('serves what it was sent, healthy, at the position of its last write', async () => {
      const db = await database();
      const a = await serve(db);
      await buildCloud(a.send);
      const p = (await a.send('GET', `/resource_providers/${RP(1)}`)).body;
      expect(p).toMatchObject({ name: 'cn1', generation: 4, root_provider_uuid: RP(1) });
      expect((await a.send('GET', `/resource_providers/${RP(2)}/usages`)).body).toEqual({
        resource_provider_generation: 2,
        usages: { VCPU: 2 },
      });
      expect((await a.send('GET', `/resource_providers/${RP(1)}/aggregates`)).body.aggregates).toEqual([AGG]);
      const health = a.placement.health();
      expect(health.status).toBe('ok');
      if (db.durable) expect(health.position).toBeGreaterThan(0);
    });

    it("answers a stale generation with Placement's 409 and writes nothing", async () => {
      const db = await database();
      const a = await serve(db);
      await buildCloud(a.send);
      const stale = await a.send('PUT', `/resource_providers/${RP(1)}/inventories`, {
        resource_provider_generation: 0,
        inventories: { MEMORY_MB: { total: 1 } },
      });
      expect(stale.status).toBe(409);
      expect(stale.body.errors?.[0]).toMatchObject({
        code: 'placement.concurrent_update',
        detail: expect.stringContaining('resource provider generation conflict'),
      });
      const consumer = await a.send('PUT', `/allocations/${CONSUMER(1)}`, {
        allocations: { [RP(2)]: { resources: { VCPU: 1 } } },
        project_id: 'p1',
        user_id: 'u1',
        consumer_generation: 7,
        consumer_type: 'INSTANCE',
      });
      expect(consumer.status).toBe(409);
      expect(consumer.body.errors?.[0]?.detail).toContain(
        'consumer generation conflict - expected 1 but got 7',
      );
      expect((await a.send('GET', `/resource_providers/${RP(1)}/inventories`)).body).toMatchObject({
        resource_provider_generation: 4,
        inventories: { MEMORY_MB: { total: 4096 } },
      });
    });

    it("refuses an allocation beyond capacity with Placement's 409 and keeps the old one", async () => {
      const db = await database();
      const a = await serve(db);
      await buildCloud(a.send);
      const over = await a.send('PUT', `/allocations/${CONSUMER(2)}`, {
        allocations: { [RP(2)]: { resources: { VCPU: 7 } } },
        project_id: 'p1',
        user_id: 'u1',
        consumer_generation: null,
        consumer_type: 'INSTANCE',
      });
      expect(over.status).toBe(409);
      expect(over.body.errors?.[0]?.detail).toContain('The requested amount would exceed the capacity.');
      expect((await a.send('GET', `/resource_providers/${RP(2)}/usages`)).body.usages).toEqual({ VCPU: 2 });
      expect((await a.send('GET', `/allocations/${CONSUMER(2)}`)).body.allocations).toEqual({});
    });

    it('moves, renames and deletes providers, classes and traits, and the state stays whole', async () => {
      const db = await database();
      const a = await serve(db);
      await buildCloud(a.send);
      expect((await a.send('POST', '/resource_providers', { name: 'cn2', uuid: RP(3) })).status).toBe(200);
      const moved = await a.send('PUT', `/resource_providers/${RP(2)}`, {
        name: 'numa-moved',
        parent_provider_uuid: RP(3),
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ root_provider_uuid: RP(3), parent_provider_uuid: RP(3) });
      expect((await a.send('DELETE', `/resource_providers/${RP(3)}`)).status).toBe(409);
      expect((await a.send('DELETE', `/allocations/${CONSUMER(1)}`)).status).toBe(204);
      expect((await a.send('DELETE', `/resource_providers/${RP(2)}`)).status).toBe(204);
      expect((await a.send('DELETE', `/resource_providers/${RP(3)}`)).status).toBe(204);
      // A custom class renamed before 1.7, used by an inventory and an allocation.
      await a.send('PUT', `/resource_providers/${RP(1)}/inventories`, {
        resource_provider_generation: 4,
        inventories: { CUSTOM_FPGA: { total: 2 } },
      });
      await a.send('PUT', `/allocations/${CONSUMER(3)}`, {
        allocations: { [RP(1)]: { resources: { CUSTOM_FPGA: 1 } } },
        project_id: 'p1',
        user_id: 'u1',
        consumer_generation: null,
        consumer_type: 'INSTANCE',
      });
      const renamed = await a.send('PUT', '/resource_classes/CUSTOM_FPGA', { name: 'CUSTOM_ACCEL' }, '1.6');
      expect(renamed.status).toBe(200);
      expect((await a.send('GET', `/resource_providers/${RP(1)}/usages`)).body.usages).toEqual({
        CUSTOM_ACCEL: 1,
      });
      expect((await a.send('DELETE', '/traits/CUSTOM_GOLD')).status).toBe(409);
      expect((await a.send('DELETE', `/resource_providers/${RP(1)}/traits`)).status).toBe(204);
      expect((await a.send('DELETE', '/traits/CUSTOM_GOLD')).status).toBe(204);
      expect((await a.send('GET', '/traits/CUSTOM_GOLD')).status).toBe(404);
      if (db.durable) {
        const before = dumpStore(a.placement.store);
        const b = await serve(db);
        expect(dumpStore(b.placement.store)).toEqual(before);
      }
    });

    it('rebuilds the same answers after a restart', async (ctx) => {
      const db = await database();
      if (!db.durable) return ctx.skip();
      const a = await serve(db);
      await buildCloud(a.send);
      const before = await readAll(a.send);
      const memory = dumpStore(a.placement.store);
      await a.placement.close();
      const b = await serve(db);
      expect(await readAll(b.send)).toEqual(before);
      expect(dumpStore(b.placement.store)).toEqual(memory);
    });

    it('shows a write acknowledged by one server in the reads of another', async (ctx) => {
      const db = await database();
      if (!db.shared) return ctx.skip();
      const a = await serve(db);
      const b = await serve(db);
      await buildCloud(a.send);
      await eventually(
        async () =>
          (await b.send('GET', `/resource_providers/${RP(2)}/usages`)).body.usages !== undefined &&
          (await b.send('GET', '/usages?project_id=p1')).body.usages !== undefined &&
          b.placement.health().position === a.placement.health().position,
      );
      expect(await readAll(b.send)).toEqual(await readAll(a.send));
      // And the other way round, on the same provider.
      const w = await b.send('PUT', `/resource_providers/${RP(1)}/traits`, {
        resource_provider_generation: 4,
        traits: [],
      });
      expect(w.status).toBe(200);
      await eventually(
        async () => (await a.send('GET', `/resource_providers/${RP(1)}`)).body.generation === 5,
      );
      expect(dumpStore(a.placement.store)).toEqual(dumpStore(b.placement.store));
    });

    it('lets exactly one of two conflicting writes through two servers win; the other is a 409', async (ctx) => {
      const db = await database();
      if (!db.shared) return ctx.skip();
      const a = await serve(db);
      const b = await serve(db);
      await buildCloud(a.send);
      await eventually(async () => b.placement.health().position === a.placement.health().position);
      const write = (send: Send, total: number) =>
        send('PUT', `/resource_providers/${RP(1)}/inventories`, {
          resource_provider_generation: 4,
          inventories: { MEMORY_MB: { total } },
        });
      const [ra, rb] = await Promise.all([write(a.send, 1000), write(b.send, 2000)]);
      expect([ra.status, rb.status].sort()).toEqual([200, 409]);
      const loser = ra.status === 409 ? ra : rb;
      expect(loser.body.errors?.[0]?.code).toBe('placement.concurrent_update');
      // The same name created through both: one provider, one 409 with Placement's text.
      const [ca, cb] = await Promise.all([
        a.send('POST', '/resource_providers', { name: 'twin', uuid: RP(10) }),
        b.send('POST', '/resource_providers', { name: 'twin', uuid: RP(11) }),
      ]);
      expect([ca.status, cb.status].sort()).toEqual([200, 409]);
      expect((ca.status === 409 ? ca : cb).body.errors?.[0]?.detail).toContain(
        'Conflicting resource provider name: twin already exists.',
      );
      await eventually(async () => b.placement.health().position === a.placement.health().position);
      expect(dumpStore(a.placement.store)).toEqual(dumpStore(b.placement.store));
    });

    it('never over-commits a provider under concurrent allocations through two servers', async (ctx) => {
      const db = await database();
      if (!db.shared) return ctx.skip();
      const a = await serve(db);
      const b = await serve(db);
      await buildCloud(a.send);
      // numa0: VCPU 4 × 2.0 = 8, 2 already used: room for 6 more.
      const attempts = Array.from({ length: 16 }, (_, i) => {
        const send = i % 2 ? b.send : a.send;
        return send('PUT', `/allocations/${CONSUMER(100 + i)}`, {
          allocations: { [RP(2)]: { resources: { VCPU: 1 } } },
          project_id: 'p1',
          user_id: 'u1',
          consumer_generation: null,
          consumer_type: 'INSTANCE',
        });
      });
      const results = await Promise.all(attempts);
      expect(results.filter((r) => r.status === 204)).toHaveLength(6);
      expect(results.filter((r) => r.status === 409)).toHaveLength(10);
      await eventually(async () => b.placement.health().position === a.placement.health().position);
      for (const send of [a.send, b.send]) {
        expect((await send('GET', `/resource_providers/${RP(2)}/usages`)).body.usages).toEqual({ VCPU: 8 });
      }
      // A trait removed on one server while another assigns it: one wins, the other gets Placement's answer.
      await a.send('PUT', '/traits/CUSTOM_SILVER');
      await eventually(async () => (await b.send('GET', '/traits/CUSTOM_SILVER')).status === 204);
      const generation = (await b.send('GET', `/resource_providers/${RP(2)}`)).body.generation;
      const [del, assign] = await Promise.all([
        a.send('DELETE', '/traits/CUSTOM_SILVER'),
        b.send('PUT', `/resource_providers/${RP(2)}/traits`, {
          resource_provider_generation: generation,
          traits: ['CUSTOM_SILVER'],
        }),
      ]);
      expect(
        (del.status === 204 && assign.status === 400) || (del.status === 409 && assign.status === 200),
      ).toBe(true);
    });
  });
}
