import { describe, expect, it } from 'vitest';
import { type DriverQueryResult, sqlExecutorOf } from './executor.js';
import { quoteIdent } from './identifier.js';

function driver(result: DriverQueryResult) {
  const calls: [string, unknown[]][] = [];
  return {
    calls,
    client: {
      async query(text: string, params: unknown[]) {
        calls.push([text, params]);
        return result;
      },
    },
  };
}

describe('sqlExecutorOf', () => {
  it('passes the statement and a copy of the parameters, and answers the rows', async () => {
    const d = driver({ rows: [{ n: 1 }], rowCount: 1 });
    const params = Object.freeze([1, 'a']);
    const r = await sqlExecutorOf(d.client).query<{ n: number }>('SELECT $1', params);
    expect(r).toEqual({ rows: [{ n: 1 }], rowCount: 1 });
    expect(d.calls).toEqual([['SELECT $1', [1, 'a']]]);
    expect(d.calls[0]?.[1]).not.toBe(params);
  });

  it('sends an empty parameter list when none is given', async () => {
    const d = driver({ rows: [] });
    await sqlExecutorOf(d.client).query('BEGIN');
    expect(d.calls).toEqual([['BEGIN', []]]);
  });

  it.each([
    [{ rows: [{}, {}], rowCount: 5 }, 5],
    [{ rows: [{}], rowCount: null, affectedRows: 3 }, 3],
    [{ rows: [{}, {}] }, 2],
    [{ rows: [], rowCount: 0, affectedRows: 4 }, 0],
  ])('counts rows from rowCount, else affectedRows, else the rows (%j)', async (result, count) => {
    expect((await sqlExecutorOf(driver(result).client).query('x')).rowCount).toBe(count);
  });

  it('lets a failure of the driver through', async () => {
    const failing = { query: async () => Promise.reject(Object.assign(new Error('no'), { code: '08006' })) };
    await expect(sqlExecutorOf(failing).query('x')).rejects.toMatchObject({ code: '08006' });
  });
});

describe('quoteIdent', () => {
  it.each([
    ['placement', '"placement"'],
    ['Mixed Case', '"Mixed Case"'],
    ['a"b', '"a""b"'],
    ['x"; DROP TABLE t; --', '"x""; DROP TABLE t; --"'],
    ['', '""'],
  ])('quotes %j as %s', (name, quoted) => {
    expect(quoteIdent(name)).toBe(quoted);
  });
});
