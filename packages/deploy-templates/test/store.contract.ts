// The behaviour every DeployTemplateStore must have. Each adapter's test file
// calls describeStoreContract with a factory that gives a fresh, empty store.
import { isStackspecError } from '@stackspec/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeployStep, DeployTemplateStore, SortKey } from '../src/index.js';
import { SORT_KEYS, StoredTemplateSchema } from '../src/index.js';

export type StoreFactory = (options?: { clock?: () => Date }) => Promise<DeployTemplateStore>;

const step = (s: string, priority = 10, args: Record<string, unknown> = {}): DeployStep => ({
  interface: 'raid',
  step: s,
  args,
  priority,
});

let seq = 0;
function uuid(): string {
  seq += 1;
  return `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`;
}

function fakeClock(): () => Date {
  let t = Date.UTC(2026, 10, 22, 22, 57, 23, 115);
  return () => {
    t += 1000;
    return new Date(t);
  };
}

async function rejection(p: Promise<unknown>): Promise<{ status: number; message: string; code: string }> {
  try {
    await p;
  } catch (e) {
    if (isStackspecError(e)) return { status: e.status, message: e.message, code: e.code };
    throw e;
  }
  throw new Error('expected a rejection');
}

export function describeStoreContract(name: string, factory: StoreFactory): void {
  describe(`${name} store contract`, () => {
    const open: DeployTemplateStore[] = [];
    const make = async (options?: { clock?: () => Date }) => {
      const s = await factory(options);
      open.push(s);
      return s;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('creates a template and reads it back by uuid and by name', async () => {
      const store = await make({ clock: fakeClock() });
      const id = uuid();
      const created = await store.create({
        uuid: id,
        name: 'CUSTOM_A',
        steps: [step('b', 5, { nested: { a: [1, 'x'] } }), step('a', 7)],
        extra: { k: 'v' },
      });
      expect(created).toMatchObject({
        uuid: id,
        name: 'CUSTOM_A',
        extra: { k: 'v' },
        version: '1.1',
        created_at: '2026-11-22T22:57:24.115000+00:00',
        updated_at: null,
      });
      expect(created.steps.map((s) => s.step)).toEqual(['b', 'a']);
      expect(created.steps[0]?.args).toEqual({ nested: { a: [1, 'x'] } });
      // The declared shape, exactly: no field missing, none extra.
      expect(StoredTemplateSchema.strict().parse(created)).toEqual(created);
      expect(StoredTemplateSchema.safeParse({ ...created, id: 'x' }).success).toBe(false);
      expect(await store.getByUuid(id)).toEqual(created);
      expect(await store.getByName('CUSTOM_A')).toEqual(created);
      expect(await store.getByName('CUSTOM_B')).toBeUndefined();
      expect(await store.getByUuid(uuid())).toBeUndefined();
    });

    it('rejects a duplicate name or uuid with Ironic’s 409 messages and leaves nothing behind', async () => {
      const store = await make();
      const id = uuid();
      await store.create({ uuid: id, name: 'CUSTOM_A', steps: [step('a')], extra: {} });
      expect(
        await rejection(store.create({ uuid: uuid(), name: 'CUSTOM_A', steps: [step('x')], extra: {} })),
      ).toEqual({
        status: 409,
        code: 'deploy-templates/duplicate-name',
        message: 'A deploy template with name CUSTOM_A already exists.',
      });
      expect(
        await rejection(store.create({ uuid: id, name: 'CUSTOM_B', steps: [step('x')], extra: {} })),
      ).toEqual({
        status: 409,
        code: 'deploy-templates/duplicate-uuid',
        message: `A deploy template with UUID ${id} already exists.`,
      });
      const all = await store.list();
      expect(all).toHaveLength(1);
      expect(all[0]?.steps).toEqual([step('a')]);
    });

    it('lets exactly one of many concurrent creates with one name win', async () => {
      const store = await make();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          store.create({ uuid: uuid(), name: 'CUSTOM_RACE', steps: [step(`s${i}`)], extra: {} }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(losers.every((r) => isStackspecError(r.reason) && r.reason.status === 409)).toBe(true);
      const [winner] = await store.list();
      expect(winner?.steps).toHaveLength(1);
    });

    it('lists in id order by default and pages with limit and marker', async () => {
      const store = await make();
      for (const n of ['CUSTOM_C', 'CUSTOM_A', 'CUSTOM_B'])
        await store.create({ uuid: uuid(), name: n, steps: [step('a')], extra: {} });
      const all = await store.list();
      expect(all.map((t) => t.name)).toEqual(['CUSTOM_C', 'CUSTOM_A', 'CUSTOM_B']);
      expect((await store.list({ limit: 2 })).map((t) => t.name)).toEqual(['CUSTOM_C', 'CUSTOM_A']);
      expect((await store.list({ marker: all[1] })).map((t) => t.name)).toEqual(['CUSTOM_B']);
      expect((await store.list({ sortKey: 'name', sortDir: 'desc' })).map((t) => t.name)).toEqual([
        'CUSTOM_C',
        'CUSTOM_B',
        'CUSTOM_A',
      ]);
    });

    it('refuses an unknown sort key as bad input, naming the keys it takes', async () => {
      const store = await make();
      await expect(store.list({ sortKey: 'size' as SortKey })).rejects.toMatchObject({
        status: 400,
        code: 'deploy-templates/invalid-sort-key',
        message: expect.stringContaining('id, uuid, name'),
      });
    });

    it('visits every template exactly once when paging in any sort order, null updated_at included', async () => {
      const store = await make({ clock: fakeClock() });
      const created = [];
      for (let i = 0; i < 7; i += 1) {
        created.push(
          await store.create({ uuid: uuid(), name: `CUSTOM_${'ZYXWVUT'[i]}`, steps: [step('a')], extra: {} }),
        );
      }
      for (const t of [created[1], created[4], created[5]]) {
        if (t) await store.modify(t.uuid, () => ({ extra: { touched: true } }));
      }
      for (const sortKey of SORT_KEYS as readonly SortKey[]) {
        for (const sortDir of ['asc', 'desc'] as const) {
          const full = (await store.list({ sortKey, sortDir })).map((t) => t.uuid);
          for (const limit of [1, 2, 3]) {
            const seen: string[] = [];
            let marker: Awaited<ReturnType<typeof store.list>>[number] | undefined;
            for (;;) {
              const page = await store.list({ sortKey, sortDir, limit, ...(marker ? { marker } : {}) });
              seen.push(...page.map((t) => t.uuid));
              if (page.length < limit) break;
              marker = page[page.length - 1];
            }
            expect(seen, `${sortKey} ${sortDir} limit ${limit}`).toEqual(full);
          }
          expect(new Set(full).size).toBe(7);
        }
      }
    });

    it('selects templates by names in id order', async () => {
      const store = await make();
      for (const n of ['CUSTOM_C', 'CUSTOM_A', 'CUSTOM_B'])
        await store.create({ uuid: uuid(), name: n, steps: [step('a')], extra: {} });
      expect((await store.listByNames(['CUSTOM_B', 'CUSTOM_C', 'CUSTOM_NONE'])).map((t) => t.name)).toEqual([
        'CUSTOM_C',
        'CUSTOM_B',
      ]);
      expect(await store.listByNames([])).toEqual([]);
    });

    it('modifies fields in one transaction and stamps updated_at only on a real change', async () => {
      const store = await make({ clock: fakeClock() });
      const t = await store.create({
        uuid: uuid(),
        name: 'CUSTOM_A',
        steps: [step('a'), step('b')],
        extra: {},
      });
      const same = await store.modify(t.uuid, () => ({ name: 'CUSTOM_A', steps: t.steps }));
      expect(same?.updated_at).toBeNull();
      const changed = await store.modify(t.uuid, (cur) => ({
        steps: [...cur.steps].reverse(),
        extra: { a: 1 },
        name: 'CUSTOM_Z',
      }));
      expect(changed).toMatchObject({ name: 'CUSTOM_Z', extra: { a: 1 }, created_at: t.created_at });
      expect(changed?.steps.map((s) => s.step)).toEqual(['b', 'a']);
      expect(changed?.updated_at).toMatch(/^2026-11-22T22:57:\d\d\.\d{6}\+00:00$/);
      expect(await store.modify(uuid(), () => ({}))).toBeUndefined();
    });

    it('changes nothing when a modification fails', async () => {
      const store = await make();
      const a = await store.create({ uuid: uuid(), name: 'CUSTOM_A', steps: [step('a')], extra: {} });
      await store.create({ uuid: uuid(), name: 'CUSTOM_B', steps: [step('b')], extra: {} });
      expect(
        await rejection(
          store.modify(a.uuid, () => ({ name: 'CUSTOM_B', steps: [step('zzz')], extra: { lost: 1 } })),
        ),
      ).toMatchObject({
        status: 409,
        message: 'A deploy template with name CUSTOM_B already exists.',
      });
      await expect(
        store.modify(a.uuid, () => {
          throw new Error('validation failed');
        }),
      ).rejects.toThrow('validation failed');
      expect(await store.getByUuid(a.uuid)).toEqual(a);
    });

    it('serialises concurrent modifications so that none is lost', async () => {
      const store = await make();
      const t = await store.create({ uuid: uuid(), name: 'CUSTOM_A', steps: [step('s0')], extra: {} });
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          store.modify(t.uuid, (cur) => ({ steps: [...cur.steps, step(`s${i + 1}`)] })),
        ),
      );
      expect((await store.getByUuid(t.uuid))?.steps).toHaveLength(7);
    });

    it('deletes a template with its steps', async () => {
      const store = await make();
      const t = await store.create({ uuid: uuid(), name: 'CUSTOM_A', steps: [step('a')], extra: {} });
      expect(await store.delete(t.uuid)).toBe(true);
      expect(await store.delete(t.uuid)).toBe(false);
      expect(await store.getByName('CUSTOM_A')).toBeUndefined();
      const again = await store.create({ uuid: uuid(), name: 'CUSTOM_A', steps: [step('x')], extra: {} });
      expect(again.steps).toEqual([step('x')]);
    });
  });
}
