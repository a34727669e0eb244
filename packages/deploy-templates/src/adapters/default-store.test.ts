import { describe, expect, it } from 'vitest';
import { createDefaultStore } from './default-store.js';

const template = {
  uuid: '3f1ad6a2-46c4-4ac4-a2b8-2b83e8c1b1a4',
  name: 'CUSTOM_RAID1',
  steps: [{ interface: 'raid', step: 'apply_configuration', args: {}, priority: 10 }],
  extra: {},
};

describe('createDefaultStore', () => {
  it('stores and finds templates in an in-memory PGlite store made on first use', async () => {
    const store = createDefaultStore();
    try {
      await store.create(template);
      expect((await store.getByName('CUSTOM_RAID1'))?.uuid).toBe(template.uuid);
      expect((await store.listByNames(['CUSTOM_RAID1'])).map((t) => t.name)).toEqual(['CUSTOM_RAID1']);
      const changed = await store.modify(template.uuid, () => ({ extra: { a: 1 } }));
      expect(changed?.extra).toEqual({ a: 1 });
      expect(await store.delete(template.uuid)).toBe(true);
      expect(await store.getByUuid(template.uuid)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('refuses every call once closed, also when it was closed before its first use', async () => {
    const used = createDefaultStore();
    await used.list();
    await used.close();
    await expect(used.list()).rejects.toThrow(/closed/);
    const unused = createDefaultStore();
    await unused.close();
    await expect(unused.list()).rejects.toThrow(/closed/);
    await expect(unused.create(template)).rejects.toThrow(/closed/);
  });
});
