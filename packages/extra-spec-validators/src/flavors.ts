import {
  createDiagnostic,
  type Diagnostic,
  describeType,
  diagnosticsFromZod,
  didYouMean,
  hasErrors,
  invalidResult,
  type PathSegment,
  type SourceDocument,
  suggest,
  toJsonPointer,
  unwrapResult,
  type ValidationResult,
  validateDocument,
  validateJsonPointer,
} from '@stackspec/core';
import { z } from 'zod';
import { optionsOf, requireString } from './guards.js';
import { type ValidateExtraSpecsOptions, validateExtraSpecs } from './validate.js';

/** One flavor found in a file. */
export interface FlavorEntry {
  /** The flavor's name, when the file gives one. */
  name: string | undefined;
  /** Its extra specs, values as strings. */
  extraSpecs: Record<string, string>;
  /** JSON pointer of the mapping (or string) that held the extra specs. */
  path: string;
}

/** Result of {@link readFlavorFile}. */
export interface ReadFlavorFileResult {
  flavors: FlavorEntry[];
  /** Problems with the file itself (syntax, shape, value types), located. */
  diagnostics: Diagnostic[];
  document: SourceDocument | undefined;
}

const SPEC_FIELDS = ['extra_specs', 'properties', 'Properties', 'os-flavor-access:extra_specs'];
const NAME_FIELDS = ['name', 'Name'];

/** A size in a flavor: a whole number, written as a number or (as Nova's API also takes it) as digits. */
const Count = z.union([z.number().int().min(0), z.string().regex(/^\d+$/)]);
/** Nova answers 0 swap as an empty string before microversion 2.75. */
const Swap = z.union([Count, z.literal('')]);
const Flag = z.boolean();
/**
 * A field of the client's flavor resource that has no default: `openstack flavor show/list -f json` prints
 * null for it when the server's answer lacks it (an API in front of Nova, or a Nova that dropped the field).
 */
const Absent = z.null();
const Text = z.string().nullable();

/**
 * One flavor as a file holds it, with the fields of Nova's API, of
 * `openstack flavor show/list --long -f json` (old and new clients), and of
 * Nova's flavor object (which placement tools use). Extra specs are read
 * separately, so their fields take anything here.
 */
const FlavorFileEntrySchema = z
  .object({
    id: z.union([z.string(), z.number()]).optional(),
    ID: z.union([z.string(), z.number()]).optional(),
    flavorid: z.string().optional(),
    name: z.string().optional(),
    Name: z.string().optional(),
    original_name: z.string().optional(),
    description: Text.optional(),
    Description: Text.optional(),
    vcpus: Count.optional(),
    VCPUs: Count.optional(),
    ram: Count.optional(),
    RAM: Count.optional(),
    memory_mb: Count.optional(),
    disk: Count.optional(),
    Disk: Count.optional(),
    root_gb: Count.optional(),
    ephemeral: Count.optional(),
    Ephemeral: Count.optional(),
    ephemeral_gb: Count.optional(),
    'OS-FLV-EXT-DATA:ephemeral': Count.optional(),
    swap: Swap.optional(),
    Swap: Swap.optional(),
    rxtx_factor: z.union([z.number().min(0), Absent]).optional(),
    'RXTX Factor': z.union([z.number().min(0), z.string(), Absent]).optional(),
    vcpu_weight: z.number().int().nullable().optional(),
    'os-flavor-access:is_public': Flag.optional(),
    is_public: Flag.optional(),
    'Is Public': Flag.optional(),
    'OS-FLV-DISABLED:disabled': z.union([Flag, Absent]).optional(),
    disabled: Flag.optional(),
    is_disabled: z.union([Flag, Absent]).optional(),
    is_bfv: Flag.optional(),
    access_project_ids: z
      .union([z.array(z.string()), z.string()])
      .nullable()
      .optional(),
    projects: z.array(z.string()).optional(),
    links: z.array(z.unknown()).optional(),
    location: z.unknown().optional(),
    extra_specs: z.unknown().optional(),
    properties: z.unknown().optional(),
    Properties: z.unknown().optional(),
    'os-flavor-access:extra_specs': z.unknown().optional(),
  })
  .strict();

const COUNT_FIELDS = new Set(
  Object.entries(FlavorFileEntrySchema.shape)
    .filter(([, v]) => v.unwrap() === Count || v.unwrap() === Swap)
    .map(([k]) => k),
);

/** What a value is, in words: `a number`, `a list`, `null`. */
function kindOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'number' || typeof v === 'bigint') return 'a number';
  if (typeof v === 'boolean') return 'a boolean';
  return `a ${typeof v}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads the `key='value', key2='value2'` text the OpenStack client prints for
 * a flavor's properties in table and JSON output of older releases. A value
 * holding `', ` followed by what looks like another key cannot be told apart;
 * the client prints it the same way. Text of another form fails with code
 * `extra-specs/invalid-properties`.
 */
export function validatePropertiesString(text: string): ValidationResult<Record<string, string>> {
  requireString(text, 'The text of validatePropertiesString');
  const out: Record<string, string> = {};
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: out, diagnostics: [] };
  const re = /([^=,'][^=']*?)='(.*?)'(?:, (?=[^=,'][^=']*?=')|$)/gsy;
  let last = 0;
  for (let m = re.exec(trimmed); m; m = re.exec(trimmed)) {
    out[(m[1] as string).trim()] = m[2] as string;
    last = re.lastIndex;
    if (last >= trimmed.length) break;
  }
  if (last === trimmed.length) return { ok: true, value: out, diagnostics: [] };
  return invalidResult({
    code: 'extra-specs/invalid-properties',
    message: `The properties text is not in key='value', … form after ${JSON.stringify(trimmed.slice(0, last))}.`,
    hint: "write each property as key='value', separated by a comma and a space",
  });
}

/** Like {@link validatePropertiesString}, but returns the properties or throws a `ValidationError`. */
export function parsePropertiesString(text: string): Record<string, string> {
  return unwrapResult(validatePropertiesString(text));
}

/**
 * Reads flavors from YAML or JSON text: one flavor `{name, vcpus?, ram?,
 * disk?, extra_specs: {…}}`, `{flavors: [...]}`, a list of flavors, or what
 * `openstack flavor show -f json` / `flavor list --long -f json` print
 * (`properties` / `Properties` as a mapping or as `key='value', …` text).
 *
 * Non-string values are turned into strings the way Nova's API stores
 * numbers, with a warning (`extra-specs/non-string-value`); YAML booleans
 * (`yes`, `on`) are refused, since their original spelling is lost. A
 * `flavors` key that is not a list, a `flavor` key that is not a mapping, or
 * a flavor that is not a mapping is an error located at it
 * (`extra-specs/bad-flavor-file`); a flavor without extra specs is only a
 * warning. Flavor fields are checked too: sizes (`vcpus`, `ram`, `disk`…)
 * must be whole numbers of 0 or more, and a field no flavor has is a
 * warning (`extra-specs/unknown-flavor-field`) naming the closest known one,
 * or an error when it looks like a misspelt `extra_specs` and the flavor has
 * none. Codes: the document codes of core (`yaml/syntax`…),
 * `extra-specs/bad-flavor-file`, `extra-specs/unknown-flavor-field`,
 * `extra-specs/non-string-value`.
 */
export function readFlavorFile(text: string, filename?: string): ReadFlavorFileResult {
  requireString(text, 'The text of readFlavorFile');
  if (filename !== undefined) requireString(filename, 'The file name of readFlavorFile');
  const parsed = validateDocument(text, filename ? { filename } : {});
  if (!parsed.ok) return { flavors: [], diagnostics: parsed.diagnostics, document: undefined };
  const doc = parsed.document;
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const flavors: FlavorEntry[] = [];
  const fail = (
    path: PathSegment[],
    message: string,
    hint?: string,
    severity: 'error' | 'warning' = 'error',
  ) =>
    diagnostics.push(
      doc.diagnostic({
        code: 'extra-specs/bad-flavor-file',
        severity,
        path: toJsonPointer(path),
        message,
        ...(hint ? { hint } : {}),
      }),
    );

  /**
   * Reports fields of the wrong type (errors) and unknown fields (warnings,
   * with the closest known one); a field that looks like a misspelt
   * extra_specs when the flavor has none is an error, since its specs would
   * go unchecked. Returns whether there was such a field.
   */
  const checkFields = (
    value: Record<string, unknown>,
    at: PathSegment[],
    noSpecs: boolean,
    name: string | undefined,
  ): boolean => {
    const r = FlavorFileEntrySchema.safeParse(value);
    if (r.success) return false;
    let misspelt = false;
    const flavor = `The flavor${name ? ` '${name}'` : ''}`;
    for (const d of diagnosticsFromZod(r.error, { value, schema: FlavorFileEntrySchema })) {
      const segments = validateJsonPointer(d.path).value ?? [];
      const path = toJsonPointer([...at, ...segments]);
      const key = segments[0] as string;
      if (d.code.endsWith('/unknown-key')) {
        const specs = noSpecs ? didYouMean(suggest(key, SPEC_FIELDS)) : undefined;
        if (specs) misspelt = true;
        diagnostics.push(
          doc.diagnostic(
            {
              code: 'extra-specs/unknown-flavor-field',
              severity: specs ? 'error' : 'warning',
              path,
              message: specs
                ? `${flavor} has no extra_specs; '${key}' is not a flavor field, so the extra specs under it go unchecked.`
                : `${flavor} has a field '${key}' that flavors do not have.`,
              ...(specs || d.hint ? { hint: specs ?? d.hint } : {}),
            },
            { key: true },
          ),
        );
        continue;
      }
      const message = COUNT_FIELDS.has(key)
        ? `'${key}' must be a whole number of 0 or more${key.toLowerCase() === 'swap' ? " (or '')" : ''}, but it is ${showFieldValue(value[key])}.`
        : d.message;
      diagnostics.push(
        doc.diagnostic({ code: 'extra-specs/bad-flavor-file', path, message: `${flavor}: ${message}` }),
      );
    }
    return misspelt;
  };

  const readFlavor = (value: unknown, at: PathSegment[]) => {
    if (!isRecord(value)) {
      fail(
        at,
        `A flavor must be a mapping, but this one is ${kindOf(value)}.`,
        'Write { name: …, extra_specs: { key: value } }.',
      );
      return;
    }
    const nameField = NAME_FIELDS.find((f) => typeof value[f] === 'string');
    const name = nameField ? (value[nameField] as string) : undefined;
    const field = SPEC_FIELDS.find((f) => f in value);
    const misspelt = checkFields(value, at, field === undefined, name);
    if (!field) {
      if (!misspelt) {
        fail(
          at,
          `The flavor${name ? ` '${name}'` : ''} has no extra_specs.`,
          'Add extra_specs: { key: value }.',
          'warning',
        );
      }
      flavors.push({ name, extraSpecs: {}, path: toJsonPointer(at) });
      return;
    }
    const specs = value[field];
    const specPath = [...at, field];
    if (typeof specs === 'string') {
      const parsedProps = validatePropertiesString(specs).value;
      if (!parsedProps) {
        fail(
          specPath,
          `The properties text of the flavor${name ? ` '${name}'` : ''} is not in key='value', … form.`,
        );
        return;
      }
      flavors.push({ name, extraSpecs: parsedProps, path: toJsonPointer(specPath) });
      return;
    }
    if (specs === null || specs === undefined) {
      flavors.push({ name, extraSpecs: {}, path: toJsonPointer(specPath) });
      return;
    }
    if (!isRecord(specs)) {
      fail(specPath, `'${field}' must be a mapping of keys to values.`);
      return;
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(specs)) {
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' && Number.isFinite(v)) {
        out[k] = String(v);
        diagnostics.push(
          doc.diagnostic({
            code: 'extra-specs/non-string-value',
            severity: 'warning',
            path: toJsonPointer([...specPath, k]),
            message: `The value of '${k}' is a number; it is checked as '${String(v)}'.`,
            hint: 'Quote it, as Nova stores every value as a string.',
          }),
        );
      } else {
        diagnostics.push(
          doc.diagnostic({
            code: 'extra-specs/non-string-value',
            path: toJsonPointer([...specPath, k]),
            message: `The value of '${k}' must be a string, but it is ${v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v}.`,
            hint:
              typeof v === 'boolean'
                ? "YAML reads yes/no/on/off as booleans; quote the value, e.g. 'true'."
                : undefined,
          }),
        );
      }
    }
    flavors.push({ name, extraSpecs: out, path: toJsonPointer(specPath) });
  };

  const root = doc.value;
  if (Array.isArray(root))
    root.forEach((f, i) => {
      readFlavor(f, [i]);
    });
  else if (isRecord(root) && 'flavors' in root) {
    // What Nova's flavor list answers: anything but a list is a mistake, not a flavor without specs.
    if (Array.isArray(root.flavors)) {
      (root.flavors as unknown[]).forEach((f, i) => {
        readFlavor(f, ['flavors', i]);
      });
    } else {
      fail(
        ['flavors'],
        `'flavors' must be a list of flavors, but it is ${kindOf(root.flavors)}.`,
        'Write flavors: [{ name: …, extra_specs: { key: value } }, …].',
      );
    }
  } else if (isRecord(root) && 'flavor' in root) {
    // What Nova's flavor show answers.
    if (isRecord(root.flavor)) readFlavor(root.flavor, ['flavor']);
    else {
      fail(
        ['flavor'],
        `'flavor' must be a mapping, but it is ${kindOf(root.flavor)}.`,
        'Write flavor: { name: …, extra_specs: { key: value } }.',
      );
    }
  } else if (isRecord(root)) readFlavor(root, []);
  else fail([], 'The file must hold a flavor, a list of flavors, or { flavors: [...] }.');
  return { flavors, diagnostics, document: doc };
}

const KEY_CODES = new Set(['extra-specs/unknown-key', 'extra-specs/invalid-key-syntax']);

/**
 * Reads a flavor file and validates every flavor's extra specs, with each
 * diagnostic located at the key (unknown keys) or value (bad values) in the
 * file. A flavor whose properties came as one string is located at that
 * string.
 */
export function validateFlavorFile(
  text: string,
  filename: string | undefined,
  options: Omit<ValidateExtraSpecsOptions, 'basePath'> = {},
): { ok: boolean; diagnostics: Diagnostic[]; flavors: number } {
  const read = readFlavorFile(text, filename);
  const opts = optionsOf(options, 'validateFlavorFile');
  const diagnostics = [...read.diagnostics];
  const doc = read.document;
  for (const flavor of read.flavors) {
    const r = validateExtraSpecs(flavor.extraSpecs, { ...opts, basePath: flavor.path });
    for (const d of r.diagnostics) {
      const located = doc ? doc.diagnostic(d, { key: KEY_CODES.has(d.code) }) : d;
      const name = flavor.name ? `Flavor '${flavor.name}': ` : '';
      diagnostics.push({ ...located, message: `${name}${located.message}` });
    }
  }
  if (!doc && !diagnostics.length) {
    diagnostics.push(
      createDiagnostic({ code: 'extra-specs/bad-flavor-file', message: 'The file could not be read.' }),
    );
  }
  return { ok: !hasErrors(diagnostics), diagnostics, flavors: read.flavors.length };
}

// A field's value for a message: strings quoted, mappings and lists by their
// kind (a mapping's own `toString` key must not be called), others as written.
function showFieldValue(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`;
  return v !== null && typeof v === 'object' ? describeType(v) : String(v);
}
