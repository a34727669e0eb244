import { describe, expect, it } from 'vitest';
import {
  countBySeverity,
  createDiagnostic,
  DiagnosticSchema,
  hasErrors,
  sortDiagnostics,
  withFile,
} from './diagnostic.js';

describe('createDiagnostic', () => {
  it('fills severity and path and drops undefined optional fields', () => {
    const d = createDiagnostic({ code: 'yaml/syntax', message: 'Bad.', line: 3, column: undefined });
    expect(d).toEqual({ code: 'yaml/syntax', severity: 'error', message: 'Bad.', path: '', line: 3 });
    expect('column' in d).toBe(false);
  });

  it('keeps every provided field', () => {
    const d = createDiagnostic({
      code: 'a/b',
      severity: 'warning',
      message: 'm',
      path: '/x',
      file: 'f.yaml',
      line: 1,
      column: 2,
      endLine: 3,
      endColumn: 4,
      hint: 'h',
    });
    expect(DiagnosticSchema.parse(d)).toEqual(d);
  });
});

describe('DiagnosticSchema', () => {
  it('rejects codes that are not area/kebab-case', () => {
    expect(
      DiagnosticSchema.safeParse({ code: 'Bad Code', severity: 'error', message: 'm', path: '' }).success,
    ).toBe(false);
    expect(
      DiagnosticSchema.safeParse({ code: 'yaml/ok-code', severity: 'error', message: 'm', path: '' }).success,
    ).toBe(true);
  });

  it('rejects zero or negative positions', () => {
    const r = DiagnosticSchema.safeParse({ code: 'a/b', severity: 'error', message: 'm', path: '', line: 0 });
    expect(r.success).toBe(false);
  });
});

describe('severity helpers', () => {
  const ds = [
    createDiagnostic({ code: 'a/b', message: 'e' }),
    createDiagnostic({ code: 'a/c', message: 'w', severity: 'warning' }),
    createDiagnostic({ code: 'a/d', message: 'w2', severity: 'warning' }),
  ];

  it('counts by severity', () => {
    expect(countBySeverity(ds)).toEqual({ error: 1, warning: 2, info: 0 });
  });

  it('finds errors only when one has severity error', () => {
    expect(hasErrors(ds)).toBe(true);
    expect(hasErrors(ds.slice(1))).toBe(false);
    expect(hasErrors([])).toBe(false);
  });
});

describe('sortDiagnostics', () => {
  it('orders by file, line, column, then errors before warnings, without mutating', () => {
    const input = [
      createDiagnostic({ code: 'x/w', severity: 'warning', message: 'w', file: 'b', line: 1 }),
      createDiagnostic({ code: 'x/e', message: 'e', file: 'b', line: 1 }),
      createDiagnostic({ code: 'x/a', message: 'a', file: 'a', line: 9 }),
      createDiagnostic({ code: 'x/l', message: 'l', file: 'b', line: 1, column: 5 }),
    ];
    const copy = [...input];
    expect(sortDiagnostics(input).map((d) => d.message)).toEqual(['a', 'e', 'w', 'l']);
    expect(input).toEqual(copy);
  });
});

describe('withFile', () => {
  it('sets file only where it is missing', () => {
    const out = withFile(
      [
        createDiagnostic({ code: 'a/b', message: 'm' }),
        createDiagnostic({ code: 'a/b', message: 'm', file: 'keep' }),
      ],
      'new.yaml',
    );
    expect(out.map((d) => d.file)).toEqual(['new.yaml', 'keep']);
  });

  it('returns a copy unchanged without a file', () => {
    const ds = [createDiagnostic({ code: 'a/b', message: 'm' })];
    expect(withFile(ds, undefined)).toEqual(ds);
  });
});
