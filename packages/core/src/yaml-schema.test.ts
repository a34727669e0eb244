import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, validateDocument } from './document.js';
import { constructPyYamlFloat, constructPyYamlInt, plainScalarKind } from './yaml-schema.js';

const scalar = (text: string) => (parseDocument<{ v: unknown }>(`v: ${text}\n`).value as { v: unknown }).v;

describe('PyYAML 1.1 scalar resolution', () => {
  it.each([
    ['yes', true],
    ['Yes', true],
    ['YES', true],
    ['on', true],
    ['ON', true],
    ['True', true],
    ['no', false],
    ['Off', false],
    ['FALSE', false],
    ['y', 'y'],
    ['n', 'n'],
    ['Y', 'Y'],
    ['yEs', 'yEs'],
    ['~', null],
    ['null', null],
    ['NULL', null],
    ['', null],
    ['nULL', 'nULL'],
  ])('reads %j as %j', (text, expected) => {
    expect(scalar(text)).toBe(expected);
  });

  it.each([
    ['010', 8],
    ['0', 0],
    ['-0', 0],
    ['0b101', 5],
    ['0x1F', 31],
    ['-0x1f', -31],
    ['1_000', 1000],
    ['+12', 12],
    ['1:30', 90],
    ['-1:00:00', -3600],
    ['190:20:30', 685230],
    ['08', '08'],
    ['0o7', '0o7'],
    ['1e3', '1e3'],
    ['1.0e3', '1.0e3'],
  ])('reads integer-like %j as %j', (text, expected) => {
    expect(scalar(text)).toBe(expected);
  });

  it.each([
    ['1.5', 1.5],
    ['1.', 1],
    ['.5', 0.5],
    ['1.0e+3', 1000],
    ['6.8523015e+5', 685230.15],
    ['1_0.5', 10.5],
    ['190:20:30.15', 685230.15],
    ['-.inf', Number.NEGATIVE_INFINITY],
    ['.Inf', Number.POSITIVE_INFINITY],
    ['-.5', -0.5],
  ])('reads float-like %j as %j', (text, expected) => {
    expect(scalar(text)).toBeCloseTo(expected as number, 6);
  });

  it('reads .nan as NaN', () => {
    expect(scalar('.NaN')).toBeNaN();
  });

  it('keeps timestamps and dates as the text written', () => {
    expect(scalar('2015-10-15')).toBe('2015-10-15');
    expect(scalar('2001-12-14t21:59:43.10-05:00')).toBe('2001-12-14t21:59:43.10-05:00');
    expect(scalar('!!timestamp 2015-10-15')).toBe('2015-10-15');
  });

  it('never resolves quoted scalars', () => {
    expect(scalar("'yes'")).toBe('yes');
    expect(scalar('"010"')).toBe('010');
  });

  it('keeps version-like text as strings', () => {
    expect(scalar('5.13.0')).toBe('5.13.0');
    expect(scalar('2.6')).toBe(2.6);
  });
});

describe('constructors', () => {
  it('construct ints and floats the PyYAML way', () => {
    expect(constructPyYamlInt('-0b1_1')).toBe(-3);
    expect(constructPyYamlInt('+0x_ff')).toBe(255);
    expect(constructPyYamlInt('0_7')).toBe(7);
    expect(constructPyYamlFloat('+.INF')).toBe(Number.POSITIVE_INFINITY);
    expect(constructPyYamlFloat('1:1.5')).toBe(61.5);
  });
});

describe('plainScalarKind', () => {
  it.each([
    ['', 'null'],
    ['~', 'null'],
    ['Null', 'null'],
    ['Off', 'bool'],
    ['yes', 'bool'],
    ['y', 'string'],
    ['010', 'int'],
    ['0x1F', 'int'],
    ['1:30', 'int'],
    ['08', 'string'],
    ['1e3', 'string'],
    ['1.0e+3', 'float'],
    ['.inf', 'float'],
    ['2015-10-15', 'string'],
    ['=', 'value'],
    ['a=b', 'string'],
  ])('gives %j the kind %j', (text, kind) => {
    expect(plainScalarKind(text)).toBe(kind);
  });

  it('agrees with what the document loader builds from the same plain scalar', () => {
    const char = fc.constantFrom(...'0123456789abeflnosuxyEFLNOTY.:_+-~='.split(''));
    fc.assert(
      fc.property(
        fc.array(char, { maxLength: 8 }).map((cs) => cs.join('')),
        (text) => {
          const kind = plainScalarKind(text);
          const r = validateDocument(`v: ${text}\n`);
          if (kind === 'value') {
            expect(r.ok).toBe(false);
            return;
          }
          // Some texts are not plain scalars at all (`-`, `a:`); only loaded ones are compared.
          if (!r.ok) return;
          const v = (r.document.value as { v: unknown }).v;
          const built =
            v === null
              ? 'null'
              : typeof v === 'boolean'
                ? 'bool'
                : typeof v === 'number'
                  ? 'number'
                  : 'string';
          expect(built, text).toBe(kind === 'int' || kind === 'float' ? 'number' : kind);
        },
      ),
      { numRuns: 2000, seed: 7 },
    );
  });
});
