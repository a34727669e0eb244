import { describe, expect, it } from 'vitest';
import { createDiagnostic } from './diagnostic.js';
import { isErrorKind } from './errors.js';
import { invalidResult, unwrapResult, validationErrorOf } from './result.js';

describe('unwrapResult', () => {
  it('returns the value of a successful result', () => {
    expect(unwrapResult({ ok: true, value: 42, diagnostics: [] })).toBe(42);
  });

  it('throws a ValidationError carrying every diagnostic, coded by the first error', () => {
    const warning = createDiagnostic({ code: 'yaml/duplicate-key', severity: 'warning', message: 'Twice.' });
    const error = createDiagnostic({ code: 'demo/bad-value', message: 'The value is bad.', path: '/a' });
    let thrown: unknown;
    try {
      unwrapResult({ ok: false, diagnostics: [warning, error] });
    } catch (e) {
      thrown = e;
    }
    expect(isErrorKind(thrown, 'validation')).toBe(true);
    expect(thrown).toMatchObject({ code: 'demo/bad-value', status: 400, diagnostics: [warning, error] });
    expect((thrown as Error).message).toBe('The value is bad. (and 1 more)');
  });
});

describe('invalidResult', () => {
  it('holds one error diagnostic with the path given', () => {
    const r = invalidResult({ code: 'demo/bad', message: 'Bad.', path: '/x' });
    expect(r).toEqual({
      ok: false,
      diagnostics: [{ code: 'demo/bad', severity: 'error', message: 'Bad.', path: '/x' }],
    });
  });
});

describe('validationErrorOf', () => {
  it('falls back to the first diagnostic code when none is an error', () => {
    const info = createDiagnostic({ code: 'demo/note', severity: 'info', message: 'A note.' });
    expect(validationErrorOf([info]).code).toBe('demo/note');
  });

  it('uses the default validation code for no diagnostics at all', () => {
    expect(validationErrorOf([]).code).toBe('validation/invalid');
  });
});
