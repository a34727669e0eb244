import { describe, expect, it } from 'vitest';
import { isStackspecError } from '../errors.js';
import { formatCell, formatList, formatObject, pythonRepr, renderTable } from './output.js';

const rows = [
  { uuid: 'u1', name: 'CUSTOM_A', steps: [{ interface: 'bios', priority: 1 }], extra: {} },
  { uuid: 'u2', name: 'CUSTOM_B', steps: [], extra: { owner: 'ops' } },
];

describe('formatList', () => {
  it('renders a prettytable-style table', () => {
    expect(formatList(rows, ['uuid', 'name'], { labels: { uuid: 'UUID', name: 'Name' } })).toBe(
      [
        '+------+----------+',
        '| UUID | Name     |',
        '+------+----------+',
        '| u1   | CUSTOM_A |',
        '| u2   | CUSTOM_B |',
        '+------+----------+',
      ].join('\n'),
    );
  });

  it('renders JSON arrays keyed by label, indented or not', () => {
    expect(
      JSON.parse(formatList(rows, ['uuid', 'name'], { format: 'json', labels: { uuid: 'UUID' } })),
    ).toEqual([
      { UUID: 'u1', name: 'CUSTOM_A' },
      { UUID: 'u2', name: 'CUSTOM_B' },
    ]);
    expect(formatList(rows, ['uuid'], { format: 'json', noindent: true })).toBe(
      '[{"uuid":"u1"},{"uuid":"u2"}]',
    );
  });

  it('renders YAML, value and CSV', () => {
    expect(formatList(rows, ['uuid'], { format: 'yaml' })).toBe('- uuid: u1\n- uuid: u2');
    expect(formatList(rows, ['uuid', 'name'], { format: 'value' })).toBe('u1 CUSTOM_A\nu2 CUSTOM_B');
    expect(formatList([{ a: 'x"y', n: 3 }], ['a', 'n'], { format: 'csv' })).toBe('"a","n"\n"x""y",3');
  });

  it('selects columns with -c and rejects unknown ones', () => {
    expect(formatList(rows, ['uuid', 'name'], { format: 'value', columns: ['name', 'bogus'] })).toBe(
      'CUSTOM_A\nCUSTOM_B',
    );
    try {
      formatList(rows, ['uuid', 'name'], { columns: ['bogus'] });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('cli/unknown-column');
      expect((e as Error).message).toBe(
        "No recognized column names in 'bogus'. Recognized columns are: uuid, name.",
      );
    }
  });

  it('keeps the natural column order and each column once, whatever the order of -c', () => {
    expect(
      formatList(rows, ['uuid', 'name', 'extra'], { format: 'csv', columns: ['extra', 'uuid', 'extra'] }),
    ).toBe('"uuid","extra"\n"u1","{}"\n"u2","{""owner"":""ops""}"');
  });

  it('matches -c against labels as well as keys, exactly', () => {
    const labels = { uuid: 'UUID', name: 'Name' };
    const pick = (columns: string[]) =>
      formatList(rows, ['uuid', 'name'], { format: 'json', noindent: true, labels, columns });
    expect(pick(['Name'])).toBe('[{"Name":"CUSTOM_A"},{"Name":"CUSTOM_B"}]');
    expect(pick(['name'])).toBe(pick(['Name']));
    expect(pick(['Name', 'uuid'])).toBe('[{"UUID":"u1","Name":"CUSTOM_A"},{"UUID":"u2","Name":"CUSTOM_B"}]');
    try {
      pick(['NAME']);
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('cli/unknown-column');
      expect((e as Error).message).toBe(
        "No recognized column names in 'NAME'. Recognized columns are: UUID, Name (or by key: uuid, name).",
      );
      expect(isStackspecError(e) && e.diagnostics[0]?.hint).toBe('Did you mean Name or name?');
    }
  });

  it('reads labels as own properties only', () => {
    expect(formatList([{ toString: 'x' }], ['toString'], { format: 'csv', labels: {} })).toBe(
      '"toString"\n"x"',
    );
  });

  it('refuses object-only formats', () => {
    expect(() => formatList(rows, ['uuid'], { format: 'shell' })).toThrow(/not available for lists/);
  });

  it('renders an empty list as headers only', () => {
    expect(formatList([], ['uuid'])).toBe('+------+\n| uuid |\n+------+');
  });
});

describe('formatObject', () => {
  const obj = { name: 'CUSTOM_A', extra: { a: 1 }, updated_at: null };

  it('renders a Field/Value table with Python-style cells on request', () => {
    expect(formatObject(obj, { cellStyle: 'python' })).toBe(
      [
        '+------------+----------+',
        '| Field      | Value    |',
        '+------------+----------+',
        '| name       | CUSTOM_A |',
        "| extra      | {'a': 1} |",
        '| updated_at | None     |',
        '+------------+----------+',
      ].join('\n'),
    );
  });

  it('renders JSON, YAML, value and shell', () => {
    expect(JSON.parse(formatObject(obj, { format: 'json' }))).toEqual(obj);
    expect(formatObject(obj, { format: 'yaml', columns: ['name'] })).toBe('name: CUSTOM_A');
    expect(formatObject(obj, { format: 'value' })).toBe('CUSTOM_A\n{"a":1}\nnull');
    expect(formatObject({ 'created-at': 'a"$b' }, { format: 'shell' })).toBe('created_at="a\\"\\$b"');
  });

  it('refuses list-only formats', () => {
    expect(() => formatObject(obj, { format: 'csv' })).toThrow(/single item/);
  });

  it('picks fields with -c by key or label, in the natural order', () => {
    const labels = { updated_at: 'Updated At' };
    expect(formatObject(obj, { format: 'value', columns: ['Updated At', 'name'], labels })).toBe(
      'CUSTOM_A\nnull',
    );
    expect(formatObject(obj, { format: 'shell', columns: ['updated_at'], labels })).toBe('Updated_At="null"');
    expect(() => formatObject(obj, { columns: ['Extra'] })).toThrow(/Recognized columns are: name, extra/);
  });
});

describe('cells', () => {
  it('renders Python reprs like the OpenStack client', () => {
    expect(pythonRepr([{ interface: 'bios', args: {}, on: true, x: null }])).toBe(
      "[{'interface': 'bios', 'args': {}, 'on': True, 'x': None}]",
    );
    expect(pythonRepr("it's")).toBe('"it\'s"');
    expect(pythonRepr('a\nb')).toBe("'a\\nb'");
    expect(pythonRepr(1.5)).toBe('1.5');
  });

  it('renders JSON cells by default', () => {
    expect(formatCell(undefined)).toBe('');
    expect(formatCell(null)).toBe('null');
    expect(formatCell({ a: [1] })).toBe('{"a":[1]}');
    expect(formatCell(3)).toBe('3');
  });

  it('pads multi-line and wide cells', () => {
    expect(renderTable(['a'], [['x\nyy']])).toBe('+----+\n| a  |\n+----+\n| x  |\n| yy |\n+----+');
    expect(renderTable(['名'], [['ab']])).toBe('+----+\n| 名 |\n+----+\n| ab |\n+----+');
  });
});
