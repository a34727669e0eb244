import { describe, expect, it } from 'vitest';
import { ConflictError, isStackspecError } from '../errors.js';
import { sqlStateOf, sqlStorageError } from './storage-error.js';

const OPTIONS = {
  message: 'The app storage failed: boom',
  code: 'app/storage',
  migrateCommand: 'app migrate',
};

describe('sqlStorageError', () => {
  it('wraps a database failure in a 500 with its cause and one diagnostic', () => {
    const cause = Object.assign(new Error('boom'), { code: '57014' });
    const e = sqlStorageError(cause, OPTIONS);
    expect(isStackspecError(e)).toBe(true);
    expect({ status: e.status, code: e.code, message: e.message, cause: e.cause }).toEqual({
      status: 500,
      code: 'app/storage',
      message: 'The app storage failed: boom',
      cause,
    });
    expect(e.diagnostics).toEqual([
      expect.objectContaining({ code: 'app/storage', message: OPTIONS.message }),
    ]);
    expect(e.diagnostics[0]?.hint).toBeUndefined();
  });

  it('adds a hint naming the migrate command and the rights when a right is missing (42501)', () => {
    const e = sqlStorageError(Object.assign(new Error('permission denied'), { code: '42501' }), {
      ...OPTIONS,
      diagnosticCode: 'app/denied',
    });
    expect(e.code).toBe('app/storage');
    expect(e.diagnostics[0]).toMatchObject({
      code: 'app/denied',
      hint: 'The database role lacks a right: create or upgrade the tables with app migrate as their owner, and grant the serving role USAGE on the schema and its sequences and SELECT, INSERT, UPDATE, DELETE on its tables.',
    });
  });

  it('returns one of core’s errors as it is', () => {
    const conflict = new ConflictError('taken', { code: 'app/duplicate-name' });
    expect(sqlStorageError(conflict, OPTIONS)).toBe(conflict);
  });

  it.each([null, undefined, 'a string', 42, { code: 42501 }])(
    'wraps anything thrown (%j) without failing itself',
    (thrown) => {
      const e = sqlStorageError(thrown, OPTIONS);
      expect({ status: e.status, code: e.code, hint: e.diagnostics[0]?.hint }).toEqual({
        status: 500,
        code: 'app/storage',
        hint: undefined,
      });
    },
  );
});

describe('sqlStateOf', () => {
  it('reads a string code and nothing else', () => {
    expect(sqlStateOf({ code: '23505' })).toBe('23505');
    expect(sqlStateOf({ code: 23505 })).toBeUndefined();
    expect(sqlStateOf(null)).toBeUndefined();
    expect(sqlStateOf('23505')).toBeUndefined();
  });
});
