import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CheckerFile,
  CONFIDENCE,
  claimMisspelling,
  findMisspeltKey,
  type Recognition,
  recogniseFile,
} from './checker.js';
import { validateDocument } from './document.js';

const fileOf = (text: string, path = 'x.yaml'): CheckerFile => {
  const parsed = validateDocument(text);
  if (!parsed.ok) throw new Error('test input must parse');
  return { path, text, document: parsed.document };
};

const claiming = (name: string, claim: (file: CheckerFile) => Recognition | undefined) => ({
  name,
  recognise: claim,
});

describe('recogniseFile', () => {
  it('picks the surest claim, whatever the order of the list', () => {
    const weak = claiming('weak', () => ({ confidence: CONFIDENCE.keys }));
    const strong = claiming('strong', () => ({ confidence: CONFIDENCE.marker }));
    expect(recogniseFile([weak, strong], fileOf('a: 1\n'))?.checker.name).toBe('strong');
    expect(recogniseFile([strong, weak], fileOf('a: 1\n'))?.checker.name).toBe('strong');
  });

  it('breaks a tie by the order of the list', () => {
    const a = claiming('a', () => ({ confidence: CONFIDENCE.shape }));
    const b = claiming('b', () => ({ confidence: CONFIDENCE.shape }));
    expect(recogniseFile([a, b], fileOf('k: 1\n'))?.checker.name).toBe('a');
    expect(recogniseFile([b, a], fileOf('k: 1\n'))?.checker.name).toBe('b');
  });

  it('breaks a tie between misspellings by the key met first in the document', () => {
    const second = claiming('second', () => ({
      confidence: CONFIDENCE.misspelt,
      misspelt: { key: 'valdators', expected: 'validators' },
    }));
    const first = claiming('first', () => ({
      confidence: CONFIDENCE.misspelt,
      misspelt: { key: 'extra_spec', expected: 'extra_specs' },
    }));
    const found = recogniseFile([second, first], fileOf('extra_spec: {}\nvaldators: []\n'));
    expect(found?.checker.name).toBe('first');
    expect(found?.recognition.misspelt).toEqual({ key: 'extra_spec', expected: 'extra_specs' });
  });

  it('ignores claims of zero, below zero or not a number, and says when nothing claims the file', () => {
    const none = [
      claiming('zero', () => ({ confidence: 0 })),
      claiming('negative', () => ({ confidence: -1 })),
      claiming('nan', () => ({ confidence: Number.NaN })),
      claiming('no', () => undefined),
    ];
    expect(recogniseFile(none, fileOf('a: 1\n'))).toBeUndefined();
    expect(recogniseFile([], fileOf('a: 1\n'))).toBeUndefined();
  });

  it('answers the same for the same list and file, whatever the claims', () => {
    const claim = fc.option(
      fc.record({ confidence: fc.oneof(fc.double(), fc.constantFrom(...Object.values(CONFIDENCE))) }),
      { nil: undefined },
    );
    fc.assert(
      fc.property(fc.array(claim, { maxLength: 6 }), (claims) => {
        const list = claims.map((c, i) => claiming(String(i), () => c));
        const once = recogniseFile(list, fileOf('a: 1\n'))?.checker.name;
        expect(recogniseFile(list, fileOf('a: 1\n'))?.checker.name).toBe(once);
        if (once !== undefined) {
          const best = Math.max(...claims.map((c) => (c && c.confidence > 0 ? c.confidence : 0)));
          expect(claims[Number(once)]?.confidence).toBe(best);
        }
      }),
    );
  });
});

describe('findMisspeltKey', () => {
  const markers = [
    { key: 'extra_specs', fits: (v: unknown) => typeof v === 'object' && v !== null },
    { key: 'flavors', fits: Array.isArray },
  ];

  it('finds the first close misspelling in document order whose value fits', () => {
    expect(findMisspeltKey({ name: 'm1', Extra_Specs: {} }, markers)).toEqual({
      key: 'Extra_Specs',
      expected: 'extra_specs',
    });
    expect(findMisspeltKey({ flavours: [], extra_spec: {} }, markers)).toEqual({
      key: 'flavours',
      expected: 'flavors',
    });
  });

  it('does not count a misspelling whose value has the wrong shape, or a marker already there', () => {
    expect(findMisspeltKey({ extra_spec: 'text' }, markers)).toBeUndefined();
    expect(findMisspeltKey({ extra_specs: {}, extra_spec: {} }, markers)).toBeUndefined();
  });

  it('finds nothing in a value that is not a mapping, or far from every marker', () => {
    for (const v of [null, 'extra_spec', ['extra_spec'], 3, {}, { jobs: {} }]) {
      expect(findMisspeltKey(v, markers)).toBeUndefined();
    }
  });
});

describe('claimMisspelling', () => {
  it('claims a misspelt marker at the misspelling level, and nothing otherwise', () => {
    expect(claimMisspelling({ extra_spec: {} }, [{ key: 'extra_specs' }])).toEqual({
      confidence: CONFIDENCE.misspelt,
      misspelt: { key: 'extra_spec', expected: 'extra_specs' },
    });
    expect(claimMisspelling({ jobs: {} }, [{ key: 'extra_specs' }])).toBeUndefined();
  });
});
