import { describe, expect, it } from 'vitest';
import {
  createPostgresPool,
  findPoolOptionProblem,
  type PooledConnection,
  type PostgresPoolConfig,
  runPoolTransaction,
} from './postgres-pool.js';

/** A pool class that keeps its configuration and its `error` listeners. */
class FakePool {
  static made: FakePool[] = [];
  listeners: ((e: Error) => void)[] = [];
  constructor(readonly config: PostgresPoolConfig) {
    FakePool.made.push(this);
  }
  on(event: 'error', listener: (e: Error) => void) {
    if (event === 'error') this.listeners.push(listener);
    return this;
  }
}

describe('createPostgresPool', () => {
  it('gives the pool the defaults: 10 connections, a 10 s connection wait, nothing else', () => {
    const pool = createPostgresPool(FakePool, {});
    expect(pool.config).toEqual({ max: 10, connectionTimeoutMillis: 10_000 });
  });

  it('passes what is given, with the driver’s names', () => {
    const pool = createPostgresPool(FakePool, {
      connectionString: 'postgres://u@h/db',
      maxConnections: 3,
      connectionTimeoutMillis: 0,
      statementTimeoutMillis: 500,
      applicationName: 'app',
    });
    expect(pool.config).toEqual({
      connectionString: 'postgres://u@h/db',
      max: 3,
      connectionTimeoutMillis: 0,
      statement_timeout: 500,
      application_name: 'app',
    });
  });

  it('leaves the statement timeout to the server for 0', () => {
    expect(createPostgresPool(FakePool, { statementTimeoutMillis: 0 }).config).not.toHaveProperty(
      'statement_timeout',
    );
  });

  it('reports an idle connection that failed, in a sentence, instead of crashing', () => {
    const lines: string[] = [];
    const pool = createPostgresPool(FakePool, { log: (line) => lines.push(line) });
    expect(pool.listeners).toHaveLength(1);
    pool.listeners[0]?.(new Error('terminating connection due to administrator command'));
    expect(lines).toEqual([
      'A PostgreSQL connection of the pool failed while idle and was discarded: terminating connection due to administrator command',
    ]);
  });

  it('listens even without a log, so that the event is never unhandled', () => {
    const pool = createPostgresPool(FakePool, {});
    expect(() => pool.listeners[0]?.(new Error('gone'))).not.toThrow();
  });
});

describe('findPoolOptionProblem', () => {
  it('finds nothing wrong with whole numbers in range, or with nothing at all', () => {
    expect(findPoolOptionProblem({})).toBeUndefined();
    expect(
      findPoolOptionProblem({ maxConnections: 1, connectionTimeoutMillis: 0, statementTimeoutMillis: 0 }),
    ).toBeUndefined();
  });

  it.each([
    [{ maxConnections: 0 }, { option: 'maxConnections', min: 1, value: 0 }],
    [{ maxConnections: 2.5 }, { option: 'maxConnections', min: 1, value: 2.5 }],
    [{ connectionTimeoutMillis: -1 }, { option: 'connectionTimeoutMillis', min: 0, value: -1 }],
    [{ statementTimeoutMillis: Number.NaN }, { option: 'statementTimeoutMillis', min: 0, value: Number.NaN }],
    [
      { statementTimeoutMillis: '5' as unknown as number },
      { option: 'statementTimeoutMillis', min: 0, value: '5' },
    ],
    [
      { maxConnections: 0, statementTimeoutMillis: -1 },
      { option: 'maxConnections', min: 1, value: 0 },
    ],
  ])('names the first count out of range in %j', (options, problem) => {
    expect(findPoolOptionProblem(options)).toEqual(problem);
  });
});

describe('runPoolTransaction', () => {
  function pool(fail?: RegExp) {
    const log: string[] = [];
    const connection: PooledConnection = {
      async query(text, params) {
        log.push(params.length ? `${text} ${JSON.stringify(params)}` : text);
        if (fail?.test(text)) throw new Error(`failed: ${text}`);
        return { rows: [{ text }], rowCount: 1 };
      },
      release: () => log.push('release'),
    };
    return { log, pool: { connect: async () => connection } };
  }

  it('commits what the function did and hands the connection back', async () => {
    const p = pool();
    const out = await runPoolTransaction(p.pool, async (tx) => (await tx.query('UPDATE t', [1])).rowCount);
    expect(out).toBe(1);
    expect(p.log).toEqual(['BEGIN', 'UPDATE t [1]', 'COMMIT', 'release']);
  });

  it('begins with the statement given', async () => {
    const p = pool();
    await runPoolTransaction(
      p.pool,
      async () => undefined,
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
    expect(p.log[0]).toBe('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  });

  it('rolls back and throws the function’s error, even when the rollback fails too', async () => {
    const p = pool(/ROLLBACK/);
    const e = await runPoolTransaction(p.pool, async () => {
      throw new Error('conflict');
    }).catch((x: unknown) => x);
    expect((e as Error).message).toBe('conflict');
    expect(p.log).toEqual(['BEGIN', 'ROLLBACK', 'release']);
  });

  it('rolls back when the commit fails, and throws that failure', async () => {
    const p = pool(/COMMIT/);
    await expect(runPoolTransaction(p.pool, async () => 1)).rejects.toThrow('failed: COMMIT');
    expect(p.log).toEqual(['BEGIN', 'COMMIT', 'ROLLBACK', 'release']);
  });
});
