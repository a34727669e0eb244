// RFC 6902 `add`, `replace` and `remove`, applied the way Ironic applies a
// patch (python-jsonpatch 1.32 with python-json-pointer): same outcomes on
// arrays (`-`, insertion bounds), same failure reasons, which Ironic quotes
// in its 400 message. Written by hand because no JavaScript library
// reproduces those reasons and quirks (a leading "0" index, strings treated
// as non-indexable containers), and the subset is small.
import { pyRepr, ValidationError } from '@stackspec/core';

/** One patch operation: `op`, `path` and (for add/replace) `value`. */
export interface JsonPatchOperation {
  op: string;
  path: string;
  value?: unknown;
  [key: string]: unknown;
}

/**
 * Why an operation could not be applied, worded like python-jsonpatch: a
 * core `ValidationError` (HTTP 400, code `deploy-templates/patch-failed`)
 * whose `reason` is python-jsonpatch's text, which Ironic quotes.
 */
export class JsonPatchFailure extends ValidationError {
  readonly reason: string;

  constructor(reason: string) {
    super(reason, { code: 'deploy-templates/patch-failed' });
    this.name = 'JsonPatchFailure';
    this.reason = reason;
  }
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*$)/;

function parsePointer(path: string): string[] {
  const parts = path.split('/');
  if (parts.shift() !== '') throw new JsonPatchFailure('Location must start with /');
  return parts.map((p) => {
    if (/~[^01]|~$/.test(p)) throw new JsonPatchFailure(`Found invalid escape ${p}`);
    return p.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

/** What python-json-pointer yields for `-` inside a path: nothing can be looked up in it. */
const END_OF_LIST = Symbol('EndOfList');

function pyTypeName(value: unknown): string {
  if (value === END_OF_LIST) return "<class 'jsonpointer.EndOfList'>";
  if (value === null || value === undefined) return "<class 'NoneType'>";
  if (typeof value === 'boolean') return "<class 'bool'>";
  if (typeof value === 'number') return Number.isInteger(value) ? "<class 'int'>" : "<class 'float'>";
  return `<class '${typeof value}'>`;
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// python-json-pointer's get_part: strings are sequences, so they take
// integer parts even though nothing can be written into them.
function getPart(doc: unknown, part: string): string | number {
  if (isMapping(doc)) return part;
  if (Array.isArray(doc) || typeof doc === 'string') {
    if (part === '-') return part;
    // Python accepts any part that merely starts with "0" here, then fails to
    // convert "0x"; we reject such parts with the same reason as other bad indexes.
    if (!ARRAY_INDEX.test(part) || !/^[0-9]+$/.test(part)) {
      throw new JsonPatchFailure(`'${part}' is not a valid sequence index`);
    }
    return Number.parseInt(part, 10);
  }
  throw new JsonPatchFailure(
    `Document '${pyTypeName(doc)}' does not support indexing, must be mapping/sequence or support __getitem__`,
  );
}

function walk(doc: unknown, raw: string): unknown {
  const part = getPart(doc, raw);
  if (Array.isArray(doc) || typeof doc === 'string') {
    if (part === '-') return END_OF_LIST;
    const i = part as number;
    if (i >= doc.length) throw new JsonPatchFailure(`index '${i}' is out of bounds`);
    return doc[i];
  }
  const map = doc as Record<string, unknown>;
  if (!Object.hasOwn(map, part as string)) {
    throw new JsonPatchFailure(`member '${String(part)}' not found in ${pyRepr(map)}`);
  }
  return map[part as string];
}

function toLast(doc: unknown, parts: string[]): { parent: unknown; part: string | number } {
  let cur = doc;
  for (const p of parts.slice(0, -1)) cur = walk(cur, p);
  return { parent: cur, part: getPart(cur, parts[parts.length - 1] ?? '') };
}

function operationValue(op: JsonPatchOperation): unknown {
  if (!Object.hasOwn(op, 'value'))
    throw new JsonPatchFailure("The operation does not contain a 'value' member");
  return structuredClone(op.value);
}

function unresolved(path: string, part: string | number): JsonPatchFailure {
  return new JsonPatchFailure(`unable to fully resolve json pointer ${path}, part ${part}`);
}

/**
 * Applies one operation to `doc` in place (paths with at least one segment)
 * and returns it. Throws {@link JsonPatchFailure} with python-jsonpatch's
 * reason: `can't insert outside of list`, `can't replace outside of list`,
 * `can't remove a non-existent object '1'`, `member 'a' not found in {}`…
 */
export function applyPatchOperation<T>(doc: T, op: JsonPatchOperation): T {
  const parts = parsePointer(op.path);
  if (!parts.length) {
    if (op.op === 'remove') throw new JsonPatchFailure("can't remove a non-existent object 'None'");
    return operationValue(op) as T;
  }
  switch (op.op) {
    case 'add': {
      const value = operationValue(op);
      const { parent, part } = toLast(doc, parts);
      if (Array.isArray(parent)) {
        if (part === '-') parent.push(value);
        else if ((part as number) > parent.length) throw new JsonPatchFailure("can't insert outside of list");
        else parent.splice(part as number, 0, value);
      } else if (isMapping(parent)) {
        parent[part as string] = value;
      } else {
        throw unresolved(op.path, part);
      }
      return doc;
    }
    case 'replace': {
      const value = operationValue(op);
      const { parent, part } = toLast(doc, parts);
      if (part === '-') throw new JsonPatchFailure("'path' with '-' can't be applied to 'replace' operation");
      if (Array.isArray(parent)) {
        if ((part as number) >= parent.length) throw new JsonPatchFailure("can't replace outside of list");
        parent[part as number] = value;
      } else if (isMapping(parent)) {
        if (!Object.hasOwn(parent, part as string)) {
          throw new JsonPatchFailure(`can't replace a non-existent object '${part}'`);
        }
        parent[part as string] = value;
      } else {
        throw unresolved(op.path, part);
      }
      return doc;
    }
    case 'remove': {
      const { parent, part } = toLast(doc, parts);
      if ((Array.isArray(parent) || typeof parent === 'string') && typeof part !== 'number') {
        throw new JsonPatchFailure(`invalid array index '${part}'`);
      }
      if (Array.isArray(parent)) {
        if ((part as number) >= parent.length)
          throw new JsonPatchFailure(`can't remove a non-existent object '${part}'`);
        parent.splice(part as number, 1);
      } else if (isMapping(parent)) {
        if (!Object.hasOwn(parent, part as string)) {
          throw new JsonPatchFailure(`can't remove a non-existent object '${part}'`);
        }
        delete parent[part as string];
      } else {
        // Python raises a TypeError here (a 500 in Ironic); report it as a conflict instead.
        throw unresolved(op.path, part);
      }
      return doc;
    }
    default:
      throw new JsonPatchFailure(`Unknown operation ${pyRepr(op.op)}`);
  }
}

/**
 * Applies operations one after another to a deep copy of `doc`; the input is
 * never modified, so a failing patch leaves nothing half-applied.
 *
 * @example
 * applyJsonPatch({ extra: {} }, [{ op: 'add', path: '/extra/a', value: 1 }]); // { extra: { a: 1 } }
 */
export function applyJsonPatch<T>(doc: T, operations: readonly JsonPatchOperation[]): T {
  let out = structuredClone(doc);
  for (const op of operations) out = applyPatchOperation(out, op);
  return out;
}
