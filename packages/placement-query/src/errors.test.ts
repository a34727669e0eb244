import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { PLACEMENT_ERROR_CODES, queryError, routeNotFound } from './errors.js';

describe('queryError', () => {
  it("is a 400 with Placement's message and code, pointing at the parameter", () => {
    const e = queryError(
      'Bad value',
      { diagnostic: 'placement-query/invalid-value', parameter: 'member_of_a/b~c', hint: 'try x' },
      PLACEMENT_ERROR_CODES.badValue,
    );
    expect(isStackspecError(e)).toBe(true);
    expect(e).toMatchObject({ status: 400, message: 'Bad value', code: 'placement.query.bad_value' });
    expect(e.diagnostics).toEqual([
      expect.objectContaining({
        code: 'placement-query/invalid-value',
        message: 'Bad value',
        path: '/member_of_a~1b~0c',
        hint: 'try x',
        severity: 'error',
      }),
    ]);
  });

  it("defaults to Placement's undefined code and an empty path", () => {
    const e = queryError('x', { diagnostic: 'placement-query/x' });
    expect(e.code).toBe('placement.undefined_code');
    expect(e.diagnostics[0]?.path).toBe('');
    expect(e.diagnostics[0]).not.toHaveProperty('hint');
  });
});

describe('routeNotFound', () => {
  it('is a 404 that says what the route needs', () => {
    const e = routeNotFound('GET /x exists from microversion 1.10.', 'ask for 1.10');
    expect(e).toMatchObject({ status: 404, message: 'GET /x exists from microversion 1.10.' });
    expect(e.diagnostics[0]?.hint).toBe('ask for 1.10');
  });
});
