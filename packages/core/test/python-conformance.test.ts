// Conformance of core's Python layer with the real interpreter: repr(),
// str(), json.dumps(), sorted() and == on generated JSON values, and int(),
// float(), strip() and json.loads() on generated text, must give the same
// values, text and error messages as Debian's Python does on the same input.
// Every case list comes from a fixed seed and goes to one Python process.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import {
  isPySpace,
  isPySpaceCode,
  type PyFailure,
  pyCompare,
  pyDecimalValue,
  pyEquals,
  pyFloat,
  pyFloatRepr,
  pyInt,
  pyJsonDumps,
  pyJsonLoads,
  pyLstrip,
  pyRepr,
  pyRstrip,
  pyStr,
  pyStrip,
} from '../src/python.js';

const PY_TEXT = `
import json, sys, unicodedata
def unassigned(v, out):
    if isinstance(v, str):
        out.extend(ord(c) for c in v if unicodedata.category(c) == 'Cn')
    elif isinstance(v, list):
        for x in v: unassigned(x, out)
    elif isinstance(v, dict):
        for k, x in v.items(): unassigned(k, out); unassigned(x, out)
    return out
for line in sys.stdin:
    v = json.loads(line)
    print(json.dumps([repr(v), str(v), json.dumps(v), unassigned(v, [])]))
`;

const PY_ORDER = `
import json, sys
for line in sys.stdin:
    a, b, items = json.loads(line)
    print(json.dumps([a == b, sorted(items)]))
`;

// Characters from every class the rules treat differently: ASCII, controls,
// Latin-1 (with its unprintable C1 range and NBSP), format characters, line
// separators, lone surrogates, astral letters and emoji, and random code points.
const interestingChar = fc.oneof(
  fc.constantFrom("'", '"', '\\', '\n', '\r', '\t', '\b', '\f', ' ', '\x00', '\x7f', '\x85', '\xa0', '\xad'),
  fc.constantFrom(
    '\u200b',
    '\u2028',
    '\u2029',
    '\ufeff',
    '\ud800',
    '\udfff',
    '😀',
    '\u{e0001}',
    '\u{10ffff}',
  ),
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);
const text = fc.array(interestingChar, { maxLength: 12 }).map((cs) => cs.join(''));
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e16, 1e21, 1e-5, 0.0001, 123456.789, 2 ** 53),
);
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(text, number, fc.boolean(), fc.constant(null)),
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(text, tie('node'), { maxKeys: 4 }),
  ),
})).node;

const isJsUnassigned = (cp: number) => /\p{Cn}/u.test(String.fromCodePoint(cp));

describe.runIf(oracleAvailable('python3', ['json', 'unicodedata']))('Python text conformance', () => {
  it('writes repr(), str() and json.dumps() text exactly as Python does', () => {
    const values = fc.sample(value, { numRuns: 1500, seed: 20261123 });
    const lines = values.map((v) => JSON.stringify(v));
    const answers = runPython(PY_TEXT, lines.join('\n'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as [string, string, string, number[]]);
    expect(answers).toHaveLength(values.length);
    let compared = 0;
    answers.forEach(([repr, str, dumps, unassigned], i) => {
      // Node's Unicode tables are newer than Python's; a character assigned
      // only in the newer tables is printable to us and escaped by Python.
      if (unassigned.some((cp) => !isJsUnassigned(cp))) return;
      // Python reads the same JSON text we wrote, so compare on what JSON.parse gives back.
      const v = JSON.parse(lines[i] as string);
      expect(pyRepr(v), lines[i]).toBe(repr);
      expect(pyStr(v), lines[i]).toBe(str);
      expect(pyJsonDumps(v), lines[i]).toBe(dumps);
      compared += 1;
    });
    expect(compared).toBeGreaterThan(values.length * 0.8);
  });

  it('compares with == and orders strings with sorted() as Python does', () => {
    const small = fc.letrec((tie) => ({
      leaf: fc.constantFrom(0, 1, 2, 0.5, true, false, null, 'a', '1', ''),
      node: fc.oneof(
        { depthSize: 'small' },
        tie('leaf'),
        fc.array(tie('node'), { maxLength: 2 }),
        fc.dictionary(fc.constantFrom('a', 'b'), tie('node'), { maxKeys: 2 }),
      ),
    })).node;
    const cases = fc.sample(fc.tuple(small, small, fc.array(text, { maxLength: 6 })), {
      numRuns: 1000,
      seed: 7,
    });
    const answers = runPython(PY_ORDER, cases.map((c) => JSON.stringify(c)).join('\n'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as [boolean, string[]]);
    let equal = 0;
    answers.forEach(([same, sorted], i) => {
      const [a, b, items] = JSON.parse(JSON.stringify(cases[i])) as [unknown, unknown, string[]];
      expect(pyEquals(a, b), JSON.stringify([a, b])).toBe(same);
      expect([...items].sort(pyCompare)).toEqual(sorted);
      if (same) equal += 1;
    });
    expect(equal).toBeGreaterThan(30);
  });
});

// ---- text to values: int(), float(), strip(), json.loads() -----------------------------------

// One line per case, `[op, ...args]`; one line back, `[unassigned, answer]`,
// where `unassigned` says that an argument holds a character Python's
// Unicode tables (older than Node's) do not know, so that case is not compared.
const PY_PARSE = `
import json, sys, unicodedata
def unassigned(args):
    return any(unicodedata.category(c) == 'Cn' for a in args if isinstance(a, str) for c in a)
def failed(e):
    return ['err', type(e).__name__, str(e)]
def run(op, args):
    if op == 'int':
        try: return ['ok', str(int(args[0]))]
        except ValueError as e: return failed(e)
    if op == 'float':
        try: return ['ok', repr(float(args[0]))]
        except ValueError as e: return failed(e)
    if op == 'strip':
        s, chars = args
        return ['ok', [s.strip(chars), s.lstrip(chars), s.rstrip(chars), [c.isspace() for c in s]]]
    if op == 'loads':
        try: v = json.loads(args[0])
        except (ValueError, RecursionError) as e: return failed(e)
        return ['ok', [repr(v), str(v), json.dumps(v)]]
    raise Exception(op)
for line in sys.stdin:
    op, *args = json.loads(line)
    print(json.dumps([unassigned(args), run(op, args)]))
`;

type Answer = ['ok', unknown] | ['err', string, string];

/** Sends every case to Python in one batch; returns Python's answers, `undefined` where Python's Unicode is older. */
function askPython(cases: readonly unknown[][]): (Answer | undefined)[] {
  const out = runPython(PY_PARSE, cases.map((c) => JSON.stringify(c)).join('\n'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as [boolean, Answer]);
  expect(out).toHaveLength(cases.length);
  return out.map(([unassigned, answer]) => (unassigned ? undefined : answer));
}

const failure = (r: PyFailure): Answer => ['err', r.exception, r.message];

const DIGITS = [...'0123456789'];
// Decimal digits from other scripts (the last, Kawi, is newer than Python 3.11's tables).
const UNICODE_DIGITS = [
  ...'\u0663\u0660\u06f9\u0966\u09ed\u0e55\uff10\uff19\u{1d7d9}\u{1d7ff}\u{104a5}\u1815\ua9d0\u{1e950}\u{11f50}',
];
// Numeric characters that are not decimal digits.
const NOT_DECIMAL = [...'\u00b2\u00bd\u216b\u1369\u2460\u00b9'];
// Python's whitespace, and characters often taken for it (ZWSP, BOM, MVS).
const SPACES = [
  ...' \t\n\v\f\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\u200b\ufeff\u180e',
];
const OTHERS = [
  '+',
  '-',
  '_',
  '__',
  '.',
  'e',
  'E',
  'x',
  '0x',
  '0o',
  '0b',
  '\x00',
  '\x7f',
  'a',
  "'",
  '"',
  '\\',
  '\u00e9',
  '\u{1f600}',
  '\ud800',
  ',',
];
const FLOAT_WORDS = [
  'inf',
  'INF',
  'Infinity',
  'iNfInItY',
  'infinit',
  'nan',
  'NaN',
  '-nan',
  '+inf',
  '1e400',
  '1e-400',
  '.5',
  '5.',
  '1.e5',
  '1e+',
  '1e_5',
  '9007199254740993',
  '0.1',
  '2.5e-324',
];

// Any character, mostly from the BMP: most astral code points are unassigned
// in Python's tables, and such cases are not compared.
const anyChar = fc
  .oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 0x2fff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x10ffff }) },
  )
  .map((c) => String.fromCodePoint(c));

const piece = (extra: readonly string[] = []) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...DIGITS) },
    { weight: 2, arbitrary: fc.constantFrom(...UNICODE_DIGITS) },
    { weight: 1, arbitrary: fc.constantFrom(...NOT_DECIMAL) },
    { weight: 3, arbitrary: fc.constantFrom(...SPACES) },
    { weight: 3, arbitrary: fc.constantFrom(...OTHERS, ...extra) },
    { weight: 1, arbitrary: anyChar },
  );
const numberish = (extra: readonly string[] = []) =>
  fc.array(piece(extra), { maxLength: 10 }).map((p) => p.join(''));

// Texts around the 4,300-digit limit, and long texts whose repr CPython cuts at 200 characters.
function limitCases(): string[] {
  const out: string[] = [];
  for (const n of [4300, 4301, 5000]) {
    const run = '9'.repeat(n);
    for (const [before, after] of [
      ['', ''],
      [' -', '  '],
      ['', 'x'],
      ['x', ''],
      ['', '_'],
      ['', '__1'],
      ['_', ''],
      ['', '\u00bd9'],
      ['', '\x00'],
      ['', '\u0663'],
      ['++', ''],
      ['', '.5'],
    ] as const) {
      out.push(`${before}${run}${after}`);
    }
    out.push(`${'1_'.repeat(n - 1)}1`, `0${'0'.repeat(n - 1)}`);
  }
  for (const n of [195, 198, 199, 200, 201, 250]) {
    out.push(
      'a'.repeat(n),
      `'${'b'.repeat(n)}`,
      `${'c'.repeat(n - 3)}\x00\u{1f600}\ud800\u00e9 z`,
      `"'${'d'.repeat(n)}`,
    );
  }
  return out;
}

describe.runIf(oracleAvailable('python3', ['json', 'unicodedata']))('Python parsing conformance', () => {
  it('reads text with int() exactly as CPython does, values and error messages alike', () => {
    const texts = [
      ...fc.sample(numberish(), { numRuns: 3000, seed: 1711 }),
      ...fc.sample(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), { numRuns: 200, seed: 5 }).map(String),
      ...limitCases(),
    ];
    const answers = askPython(texts.map((t) => ['int', t]));
    let compared = 0;
    let accepted = 0;
    answers.forEach((answer, i) => {
      if (!answer) return;
      const text = texts[i] as string;
      const r = pyInt(text);
      expect(r.ok ? ['ok', String(r.value)] : failure(r), JSON.stringify(text).slice(0, 300)).toEqual(answer);
      compared += 1;
      if (r.ok) accepted += 1;
    });
    expect(compared).toBeGreaterThan(texts.length * 0.85);
    expect(accepted).toBeGreaterThan(400);
  });

  it('reads text with float() exactly as CPython does, and spells the result as repr() does', () => {
    const doubles = fc.sample(fc.double(), { numRuns: 800, seed: 99 }).map((x) => String(x));
    const longDecimals = fc
      .sample(
        fc.tuple(
          fc.stringMatching(/^[0-9]{1,40}$/),
          fc.stringMatching(/^[0-9]{0,40}$/),
          fc.integer({ min: -340, max: 330 }),
        ),
        { numRuns: 500, seed: 3 },
      )
      .map(([a, b, e]) => `${a}.${b}e${e}`);
    const texts = [
      ...fc.sample(numberish(FLOAT_WORDS), { numRuns: 3000, seed: 1712 }),
      ...doubles,
      ...longDecimals,
      ...limitCases(),
    ];
    const answers = askPython(texts.map((t) => ['float', t]));
    let compared = 0;
    let accepted = 0;
    answers.forEach((answer, i) => {
      if (!answer) return;
      const text = texts[i] as string;
      const r = pyFloat(text);
      expect(r.ok ? ['ok', pyFloatRepr(r.value)] : failure(r), JSON.stringify(text).slice(0, 300)).toEqual(
        answer,
      );
      compared += 1;
      if (r.ok) accepted += 1;
    });
    expect(compared).toBeGreaterThan(texts.length * 0.9);
    expect(accepted).toBeGreaterThan(1500);
  });

  it('strips and tests whitespace as str.strip(), lstrip(), rstrip() and isspace() do', () => {
    const char = fc.oneof(
      fc.constantFrom(...SPACES, ...OTHERS, 'a', 'b'),
      fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
    );
    const text = fc.array(char, { maxLength: 10 }).map((cs) => cs.join(''));
    const chars = fc.option(
      fc.array(char, { maxLength: 4 }).map((cs) => cs.join('')),
      { nil: null },
    );
    const cases = fc.sample(fc.tuple(text, chars), { numRuns: 2000, seed: 77 });
    const answers = askPython(cases.map(([t, c]) => ['strip', t, c]));
    answers.forEach((answer, i) => {
      if (!answer) return;
      const [t, c] = cases[i] as [string, string | null];
      const ch = c ?? undefined;
      expect(
        ['ok', [pyStrip(t, ch), pyLstrip(t, ch), pyRstrip(t, ch), [...t].map(isPySpace)]],
        JSON.stringify([t, c]),
      ).toEqual(answer);
    });
  });

  it('knows the same whitespace and decimal digits as Python, code point by code point', () => {
    const ours = Array.from({ length: 0x110000 }, (_, cp) => cp).filter(
      (cp) => pyDecimalValue(cp) >= 0 || (cp <= 0xffff && isPySpaceCode(cp)),
    );
    const answer = runPython(
      `
import json, sys, unicodedata
ours = json.loads(sys.stdin.read())
spaces = [cp for cp in range(0x110000) if chr(cp).isspace()]
digits = {cp: unicodedata.decimal(chr(cp)) for cp in range(0x110000) if chr(cp).isdecimal()}
unknown = [cp for cp in ours if unicodedata.category(chr(cp)) == 'Cn']
print(json.dumps([spaces, digits, unknown]))
`,
      JSON.stringify(ours),
    );
    const [spaces, digits, unknown] = JSON.parse(answer) as [number[], Record<string, number>, number[]];
    const newer = new Set(unknown);
    expect(ours.filter((cp) => cp <= 0xffff && isPySpaceCode(cp))).toEqual(spaces);
    for (const [cp, value] of Object.entries(digits)) expect(pyDecimalValue(Number(cp)), cp).toBe(value);
    // Digits Python does not know are only those its older Unicode tables leave unassigned.
    expect(ours.filter((cp) => pyDecimalValue(cp) >= 0 && !(cp in digits) && !newer.has(cp))).toEqual([]);
  });
});

// Pieces of JSON text, valid and not, for the json.loads cases.
const JSON_TOKENS = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  ' ',
  '\n',
  '\t',
  '\r',
  '\x0b',
  '\x00',
  '\x1f',
  '0',
  '1',
  '-',
  '+',
  '.',
  'e',
  'E',
  '01',
  '-0',
  '1.5',
  '2.0',
  '1e5',
  '1E+05',
  '1.',
  '-',
  '1e',
  '12345678901234567890',
  'null',
  'true',
  'false',
  'nul',
  'NaN',
  'Infinity',
  '-Infinity',
  '-Inf',
  'nan',
  'None',
  '"a"',
  '"1"',
  '"__proto__"',
  '"\\u00e9"',
  '"\\ud83d\\ude00"',
  '"\\ud800"',
  '"\\ud800\\u0041"',
  '"\\udc00"',
  '"\\x"',
  '"\\u12"',
  '"\\uZZZZ"',
  '"\\/\\b\\f\\n\\r\\t\\"\\\\"',
  '"\u00e9\u{1f600}"',
  '"\ud800"',
  '"\t"',
  '\u00e9',
  '\u{1f600}',
  '\ufeff',
  "'a'",
];

const jsonNumber = fc
  .tuple(
    fc.constantFrom('', '', '-'),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,24}$/)),
    fc.option(fc.stringMatching(/^\.[0-9]{1,20}$/), { nil: '' }),
    fc.option(fc.stringMatching(/^[eE][+-]?[0-9]{1,3}$/), { nil: '' }),
  )
  .map((parts) => parts.join(''));
const jsonString = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'a',
        ' ',
        "'",
        '\\"',
        '\\\\',
        '\\/',
        '\\n',
        '\\t',
        '\\u00e9',
        '\\ud83d\\ude00',
        '\\udc00',
        '\\ud800x',
        '\u2028',
        '\u{1f600}',
        '\x7f',
      ),
      anyChar.map((c) => (c === '"' || c === '\\' || c < ' ' ? 'b' : c)),
    ),
    { maxLength: 6 },
  )
  .map((cs) => `"${cs.join('')}"`);
const space = fc.constantFrom('', '', ' ', '\n', ' \t\r\n ');
const jsonText: fc.Arbitrary<string> = fc.letrec((tie) => ({
  leaf: fc.oneof(
    jsonNumber,
    jsonString,
    fc.constantFrom('null', 'true', 'false', 'NaN', 'Infinity', '-Infinity'),
  ),
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc
      .tuple(fc.array(tie('node'), { maxLength: 4 }), space)
      .map(([items, s]) => `[${s}${items.join(`${s},${s}`)}${s}]`),
    fc
      .tuple(
        fc.array(
          fc.tuple(
            fc.oneof(jsonString, fc.constantFrom('"1"', '"0"', '"a"', '"__proto__"', '"10"')),
            tie('node'),
          ),
          {
            maxLength: 4,
          },
        ),
        space,
      )
      .map(([pairs, s]) => `{${s}${pairs.map(([k, v]) => `${k}${s}:${s}${v}`).join(`${s},${s}`)}${s}}`),
  ),
})).node as fc.Arbitrary<string>;
// A valid text with one character inserted, removed or replaced: the near misses Python words its errors for.
const nearMiss = fc
  .tuple(jsonText, fc.nat(), fc.constantFrom(...JSON_TOKENS), fc.constantFrom('insert', 'remove', 'replace'))
  .map(([t, at, token, how]) => {
    const i = at % (t.length + 1);
    if (how === 'insert') return t.slice(0, i) + token + t.slice(i);
    if (how === 'remove') return t.slice(0, i) + t.slice(i + 1);
    return t.slice(0, i) + token + t.slice(i + 1);
  });
const soup = fc.array(fc.constantFrom(...JSON_TOKENS), { maxLength: 14 }).map((ts) => ts.join(''));

// Where a JavaScript object would put keys such as "1" first, only the Map form keeps Python's order.
function hasIndexKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasIndexKey);
  if (value !== null && typeof value === 'object' && !(value instanceof Map)) {
    return Object.entries(value).some(([k, v]) => /^(0|[1-9][0-9]*)$/.test(k) || hasIndexKey(v));
  }
  return false;
}

describe.runIf(oracleAvailable('python3', ['json', 'unicodedata']))('json.loads conformance', () => {
  it('reads JSON text as json.loads does: the value, its repr, str and json.dumps, or the same error', () => {
    const texts = [
      ...fc.sample(jsonText, { numRuns: 1500, seed: 2024 }),
      ...fc.sample(nearMiss, { numRuns: 1500, seed: 2025 }),
      ...fc.sample(soup, { numRuns: 1500, seed: 2026 }),
      `[${'9'.repeat(4300)}, -${'9'.repeat(4301)}]`,
      `[${'9'.repeat(4301)}.5, 1${'0'.repeat(5000)}e-5000]`,
      `${'['.repeat(800)}${']'.repeat(800)}`,
      `${'{"a":'.repeat(800)}1${'}'.repeat(800)}`,
      `${'['.repeat(800)}1,${']'.repeat(800)}`,
      '',
      '  ',
      '\ufeff{}',
      '{"a": 1, "a": 2, "b": 3, "a": 4}',
    ];
    const answers = askPython(texts.map((t) => ['loads', t]));
    let compared = 0;
    let accepted = 0;
    answers.forEach((answer, i) => {
      if (!answer) return;
      const text = texts[i] as string;
      const label = JSON.stringify(text).slice(0, 300);
      const asMap = pyJsonLoads(text, { dict: 'map' });
      const mine: Answer = asMap.ok
        ? ['ok', [pyRepr(asMap.value), pyStr(asMap.value), pyJsonDumps(asMap.value, { allowNan: true })]]
        : failure(asMap);
      expect(mine, label).toEqual(answer);
      // Plain objects give the same answers wherever JavaScript keeps the key order.
      const asObject = pyJsonLoads(text);
      expect(asObject.ok, label).toBe(asMap.ok);
      if (asObject.ok && !hasIndexKey(asObject.value)) {
        expect(pyRepr(asObject.value), label).toBe((answer[1] as string[])[0]);
        expect(pyJsonDumps(asObject.value, { allowNan: true }), label).toBe((answer[1] as string[])[2]);
      } else if (!asObject.ok) expect(failure(asObject), label).toEqual(answer);
      compared += 1;
      if (asMap.ok) accepted += 1;
    });
    expect(compared).toBeGreaterThan(texts.length * 0.7);
    expect(accepted).toBeGreaterThan(1200);
  });

  it('refuses nesting Python cannot read with the RecursionError Python raises', () => {
    const texts = [`${'['.repeat(5000)}${']'.repeat(5000)}`, `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`];
    const answers = askPython(texts.map((t) => ['loads', t]));
    texts.forEach((text, i) => {
      const r = pyJsonLoads(text);
      expect(r.ok ? ['ok'] : failure(r)).toEqual(answers[i]);
    });
  });
});
