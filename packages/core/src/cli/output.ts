import { stringify as toYaml } from 'yaml';
import { createDiagnostic } from '../diagnostic.js';
import { pyRepr } from '../python.js';
import { didYouMean, suggest } from '../suggest.js';
import { UsageError } from './usage-error.js';
import { displayWidth as width } from './width.js';

/** Output formats of the OpenStack client (cliff), shared by every stackspec command. */
export const OUTPUT_FORMATS = ['table', 'json', 'yaml', 'value', 'csv', 'shell'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Formats valid for lists (`shell` is for single objects only). */
export const LIST_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml', 'value', 'csv'];
/** Formats valid for single objects (`csv` is for lists only). */
export const OBJECT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml', 'value', 'shell'];

/** How non-string cells render in `table`, `value`, `csv` and `shell` output. */
export type CellStyle = 'json' | 'python';

/** Options shared by {@link formatList} and {@link formatObject}. */
export interface FormatOptions {
  format?: OutputFormat;
  /**
   * Columns picked with `-c`, by key or by label; default all. The output
   * keeps the natural column order whatever the order here, as the OpenStack
   * client does.
   */
  columns?: readonly string[];
  /** JSON without indentation (`--noindent`). */
  noindent?: boolean;
  /** `python` mimics the OpenStack client (`None`, `True`, `{'a': 1}`); default `json`. */
  cellStyle?: CellStyle;
  /** Header text per column (`uuid` → `UUID`); keys stay the column names. */
  labels?: Readonly<Record<string, string>>;
}

/**
 * Python's `repr` of a JSON value, as cliff prints lists and dicts in
 * tables: the same function as `pyRepr` from `@stackspec/core`, kept under
 * this name for the command-line helpers.
 */
export const pythonRepr: (value: unknown) => string = pyRepr;

/** Text for one cell. Strings stay as they are. */
export function formatCell(value: unknown, style: CellStyle = 'json'): string {
  if (typeof value === 'string') return value;
  if (style === 'python') return pythonRepr(value);
  if (value === undefined) return '';
  if (value === null) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The columns `-c` keeps, as the OpenStack client picks them: in their natural
 * order (not the order of the `-c` options), each once, matched exactly by
 * header label (what cliff compares) or by key (what osc-lib also accepts);
 * unknown names are ignored unless none is known.
 */
function pickColumns(
  available: readonly string[],
  wanted: readonly string[] | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): string[] {
  if (!wanted?.length) return [...available];
  const asked = new Set(wanted);
  const label = (c: string) => labelOf(labels, c);
  const known = available.filter((c) => asked.has(c) || asked.has(label(c)));
  if (!known.length) {
    const names = available.map(label);
    const keys = available.filter((c) => label(c) !== c);
    const hint = didYouMean(suggest(wanted[0] ?? '', [...new Set([...names, ...available])]));
    const message = `No recognized column names in ${wanted.map((w) => `'${w}'`).join(', ')}. Recognized columns are: ${names.join(', ')}${keys.length ? ` (or by key: ${available.join(', ')})` : ''}.`;
    throw new UsageError(message, {
      code: 'cli/unknown-column',
      diagnostics: [createDiagnostic({ code: 'cli/unknown-column', message, ...(hint ? { hint } : {}) })],
    });
  }
  return known;
}

function labelOf(labels: Readonly<Record<string, string>> | undefined, column: string): string {
  return labels && Object.hasOwn(labels, column) ? (labels[column] as string) : column;
}

/** An ASCII table in the style of Python's prettytable (what the OpenStack client prints). */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const cellLines = (text: string) => text.split('\n');
  const widths = headers.map((h, i) =>
    Math.max(width(h), ...rows.map((r) => Math.max(...cellLines(r[i] ?? '').map(width)))),
  );
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const line = (cells: readonly string[]) => {
    const split = cells.map(cellLines);
    const height = Math.max(1, ...split.map((s) => s.length));
    const out: string[] = [];
    for (let k = 0; k < height; k += 1) {
      out.push(
        `|${widths
          .map((w, i) => {
            const text = split[i]?.[k] ?? '';
            return ` ${text}${' '.repeat(w - width(text))} `;
          })
          .join('|')}|`,
      );
    }
    return out.join('\n');
  };
  const parts = [rule, line(headers), rule];
  for (const r of rows) parts.push(line(r));
  if (rows.length) parts.push(rule);
  return parts.join('\n');
}

function csvCell(value: unknown, style: CellStyle): string {
  if (typeof value === 'number') return String(value);
  return `"${formatCell(value, style).replace(/"/g, '""')}"`;
}

function shellValue(value: unknown, style: CellStyle): string {
  return `"${formatCell(value, style).replace(/(["\\$`])/g, '\\$1')}"`;
}

/**
 * Renders rows for `list` commands. `columns` default to the keys of the
 * first row. JSON and YAML give arrays of objects keyed by column label;
 * `value` prints space-separated values, one row per line.
 * Throws `UsageError` when `-c` names no known column.
 */
export function formatList(
  rows: readonly Readonly<Record<string, unknown>>[],
  available: readonly string[],
  options: FormatOptions = {},
): string {
  const format = options.format ?? 'table';
  if (!LIST_FORMATS.includes(format)) {
    throw new UsageError(
      `The format '${format}' is not available for lists; use one of ${LIST_FORMATS.join(', ')}.`,
      {
        code: 'cli/bad-format',
      },
    );
  }
  const columns = pickColumns(available, options.columns, options.labels);
  const style = options.cellStyle ?? 'json';
  const label = (c: string) => labelOf(options.labels, c);
  switch (format) {
    case 'json':
    case 'yaml': {
      const items = rows.map((r) => Object.fromEntries(columns.map((c) => [label(c), r[c] ?? null])));
      return format === 'json'
        ? JSON.stringify(items, null, options.noindent ? undefined : 2)
        : toYaml(items).trimEnd();
    }
    case 'value':
      return rows.map((r) => columns.map((c) => formatCell(r[c], style)).join(' ')).join('\n');
    case 'csv':
      return [
        columns.map((c) => `"${label(c)}"`).join(','),
        ...rows.map((r) => columns.map((c) => csvCell(r[c], style)).join(',')),
      ].join('\n');
    default:
      return renderTable(
        columns.map(label),
        rows.map((r) => columns.map((c) => formatCell(r[c], style))),
      );
  }
}

/**
 * Renders one object for `show` commands: a Field/Value table, JSON, YAML,
 * `value` (one value per line) or `shell` (`name="value"` lines).
 */
export function formatObject(object: Readonly<Record<string, unknown>>, options: FormatOptions = {}): string {
  const format = options.format ?? 'table';
  if (!OBJECT_FORMATS.includes(format)) {
    throw new UsageError(
      `The format '${format}' is not available for a single item; use one of ${OBJECT_FORMATS.join(', ')}.`,
      { code: 'cli/bad-format' },
    );
  }
  const columns = pickColumns(Object.keys(object), options.columns, options.labels);
  const style = options.cellStyle ?? 'json';
  const label = (c: string) => labelOf(options.labels, c);
  switch (format) {
    case 'json':
    case 'yaml': {
      const picked = Object.fromEntries(columns.map((c) => [label(c), object[c] ?? null]));
      return format === 'json'
        ? JSON.stringify(picked, null, options.noindent ? undefined : 2)
        : toYaml(picked).trimEnd();
    }
    case 'value':
      return columns.map((c) => formatCell(object[c], style)).join('\n');
    case 'shell':
      return columns
        .map((c) => `${label(c).replace(/[^A-Za-z0-9_]/g, '_')}=${shellValue(object[c], style)}`)
        .join('\n');
    default:
      return renderTable(
        ['Field', 'Value'],
        columns.map((c) => [label(c), formatCell(object[c], style)]),
      );
  }
}
