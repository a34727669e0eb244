import { Scalar, type ScalarTag, type Tags } from 'yaml';

// Scalar resolution of PyYAML's SafeLoader (YAML 1.1), which every OpenStack
// service we mirror uses. The `yaml` package's own 1.1 schema is close but
// differs: it reads `y`/`n` as booleans and `1e3` as a float, PyYAML does not.
// Timestamps are deliberately left as strings (Heat does the same), so
// `heat_template_version: 2015-10-15` keeps its text.

const BOOL_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const BOOL_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** What a plain (unquoted) YAML 1.1 scalar resolves to, by kind only. See {@link plainScalarKind}. */
export type PlainScalarKind = 'string' | 'bool' | 'null' | 'int' | 'float' | 'value';

/**
 * The kind PyYAML's SafeLoader gives the text of a plain scalar (`yes` is a
 * bool, `010` an int, `1e3` a string, `1.0e+3` a float, `~` null), with the
 * same patterns the document loader applies. Timestamps count as strings, as
 * the loader keeps them. `value` is the lone `=`, which the safe loader
 * cannot build, so a document holding it fails to load. Quoted scalars are
 * always strings; do not pass their text here.
 *
 * @example
 * plainScalarKind('2015-10-15'); // 'string'
 * plainScalarKind('Off'); // 'bool'
 */
export function plainScalarKind(text: string): PlainScalarKind {
  if (NULL.test(text)) return 'null';
  if (BOOL_TRUE.test(text) || BOOL_FALSE.test(text)) return 'bool';
  if (INT.test(text)) return 'int';
  if (FLOAT.test(text)) return 'float';
  if (text === '=') return 'value';
  return 'string';
}

/** Base-60 digits as PyYAML reads them (`1:30` is 90). */
function sexagesimal(digits: string, parse: (part: string) => number): number {
  let value = 0;
  for (const part of digits.split(':')) value = value * 60 + parse(part);
  return value;
}

/** Integer construction with PyYAML's rules: `_` ignored, `0` prefix octal, `0b`, `0x`, base 60. */
export function constructPyYamlInt(source: string): number {
  let text = source.replace(/_/g, '');
  let sign = 1;
  if (text[0] === '-' || text[0] === '+') {
    if (text[0] === '-') sign = -1;
    text = text.slice(1);
  }
  if (text === '0') return 0;
  if (text.startsWith('0b')) return sign * Number.parseInt(text.slice(2), 2);
  if (text.startsWith('0x')) return sign * Number.parseInt(text.slice(2), 16);
  if (text.startsWith('0')) return sign * Number.parseInt(text.slice(1), 8);
  if (text.includes(':')) return sign * sexagesimal(text, (p) => Number.parseInt(p, 10));
  return sign * Number.parseInt(text, 10);
}

/** Float construction with PyYAML's rules, including `.inf`, `.nan` and base 60. */
export function constructPyYamlFloat(source: string): number {
  let text = source.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (text[0] === '-' || text[0] === '+') {
    if (text[0] === '-') sign = -1;
    text = text.slice(1);
  }
  if (text === '.inf') return sign * Number.POSITIVE_INFINITY;
  if (text === '.nan') return Number.NaN;
  if (text.includes(':')) return sign * sexagesimal(text, (p) => Number.parseFloat(p));
  return sign * Number.parseFloat(text);
}

const TAG_BOOL = 'tag:yaml.org,2002:bool';
const TAG_INT = 'tag:yaml.org,2002:int';
const TAG_FLOAT = 'tag:yaml.org,2002:float';
const TAG_NULL = 'tag:yaml.org,2002:null';
const TAG_TIMESTAMP = 'tag:yaml.org,2002:timestamp';

const pyYamlScalars: ScalarTag[] = [
  {
    tag: TAG_NULL,
    default: true,
    test: NULL,
    identify: (v) => v === null || v === undefined,
    resolve: () => new Scalar(null),
  },
  {
    tag: TAG_BOOL,
    default: true,
    test: BOOL_TRUE,
    identify: (v) => v === true,
    resolve: () => new Scalar(true),
  },
  {
    tag: TAG_BOOL,
    default: true,
    test: BOOL_FALSE,
    identify: (v) => v === false,
    resolve: () => new Scalar(false),
  },
  {
    tag: TAG_INT,
    default: true,
    test: INT,
    identify: (v) => typeof v === 'number' && Number.isInteger(v),
    resolve: (src) => constructPyYamlInt(src),
  },
  {
    tag: TAG_FLOAT,
    default: true,
    test: FLOAT,
    identify: (v) => typeof v === 'number',
    resolve: (src) => constructPyYamlFloat(src),
  },
  {
    // PyYAML resolves a lone `=` to the "value" type, which its safe loader
    // cannot build, so such a document fails there; fail the same way.
    tag: 'tag:yaml.org,2002:value',
    default: true,
    test: /^=$/,
    resolve: (src, onError) => {
      onError("The plain scalar '=' is the YAML 1.1 value indicator, which is not supported; quote it.");
      return src;
    },
  },
  {
    // An explicit `!!timestamp` keeps its text too.
    tag: TAG_TIMESTAMP,
    default: false,
    resolve: (src) => src,
  },
];

const REPLACED = new Set([TAG_BOOL, TAG_INT, TAG_FLOAT, TAG_NULL, TAG_TIMESTAMP]);
// Collection and binary tags whose results are not plain JSON data (Set, Map,
// Uint8Array); a document using them is rejected as an unsupported tag.
const DROPPED = new Set([
  'tag:yaml.org,2002:binary',
  'tag:yaml.org,2002:omap',
  'tag:yaml.org,2002:pairs',
  'tag:yaml.org,2002:set',
]);

/** Replaces the `yaml` package's 1.1 scalar tags with PyYAML's. */
export function pyYamlTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    const name = typeof t === 'string' ? t : t.tag;
    return !REPLACED.has(name) && !DROPPED.has(name);
  });
  return [...kept, ...pyYamlScalars];
}
