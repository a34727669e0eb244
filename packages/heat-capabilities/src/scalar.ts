// Plain-scalar resolution of PyYAML's SafeLoader (YAML 1.1) with Heat's
// override that keeps timestamps as text. The fast scanner uses it to read a
// version value without building a document; the patterns are the ones the
// full loader in core applies.

const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** What a plain (unquoted) YAML 1.1 scalar resolves to, by kind only. */
export type PlainScalarKind = 'string' | 'bool' | 'null' | 'int' | 'float';

/** The kind PyYAML gives a plain scalar's text (timestamps count as strings, as in Heat). */
export function plainScalarKind(text: string): PlainScalarKind {
  if (NULL.test(text)) return 'null';
  if (BOOL.test(text)) return 'bool';
  if (INT.test(text)) return 'int';
  if (FLOAT.test(text)) return 'float';
  return 'string';
}
