import { describe, expect, it } from 'vitest';
import { createDiagnostic } from './diagnostic.js';
import {
  ConflictError,
  describeError,
  HttpError,
  isErrorKind,
  isStackspecError,
  NotFoundError,
  SpecError,
  ValidationError,
} from './errors.js';

describe('error family', () => {
  it('gives each kind its status and default code', () => {
    expect(new ValidationError('bad')).toMatchObject({
      status: 400,
      kind: 'validation',
      code: 'validation/invalid',
    });
    expect(new SpecError('bad')).toMatchObject({ status: 400, kind: 'spec', code: 'spec/invalid' });
    expect(new NotFoundError('gone')).toMatchObject({
      status: 404,
      kind: 'not-found',
      code: 'http/not-found',
    });
    expect(new ConflictError('dup')).toMatchObject({ status: 409, kind: 'conflict', code: 'http/conflict' });
    expect(new HttpError(406, 'no')).toMatchObject({ status: 406, kind: 'http' });
  });

  it('makes one diagnostic from the message when none are given', () => {
    const e = new NotFoundError('Deploy template X could not be found.', {
      code: 'deploy-templates/not-found',
    });
    expect(e.diagnostics).toEqual([
      {
        code: 'deploy-templates/not-found',
        severity: 'error',
        message: 'Deploy template X could not be found.',
        path: '',
      },
    ]);
  });

  it('derives the message from the first error diagnostic with its location', () => {
    const e = new ValidationError(undefined, {
      diagnostics: [
        createDiagnostic({ code: 'a/w', severity: 'warning', message: 'just a warning' }),
        createDiagnostic({ code: 'a/e', message: 'The key is wrong.', file: 'f.yaml', line: 3, column: 7 }),
      ],
    });
    expect(e.message).toBe('f.yaml:3:7: The key is wrong. (and 1 more)');
    expect(e.diagnostics).toHaveLength(2);
  });

  it('keeps the wrapped foreign error as cause', () => {
    const cause = new Error('connection refused');
    const e = new ConflictError('clash', { cause });
    expect(e.cause).toBe(cause);
  });

  it('is recognised across copies of core by its brand, not its class', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('@stackspec/error')]: true });
    expect(isStackspecError(foreign)).toBe(true);
    expect(isStackspecError(new Error('plain'))).toBe(false);
    expect(isStackspecError('string')).toBe(false);
    expect(isStackspecError(null)).toBe(false);
  });

  it('narrows by kind', () => {
    expect(isErrorKind(new ConflictError('x'), 'conflict')).toBe(true);
    expect(isErrorKind(new ConflictError('x'), 'not-found')).toBe(false);
    expect(isErrorKind(new Error('x'), 'conflict')).toBe(false);
  });
});

describe('describeError', () => {
  it('describes errors, strings and other values', () => {
    expect(describeError(new Error('boom'))).toBe('boom');
    expect(describeError('text')).toBe('text');
    expect(describeError({ a: 1 })).toBe('{"a":1}');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(describeError(circular)).toBe('[object Object]');
    expect(describeError(undefined)).toBe('undefined');
  });
});
