import {
  createMemoryResourceReader,
  type Diagnostic,
  describeError,
  describeType,
  didYouMean,
  hasErrors,
  optionsOf,
  type PathSegment,
  PyFloat,
  type PyValue,
  pyEquals,
  pyRepr,
  pyTruthy,
  type ResourceReader,
  requireObject,
  requireString,
  type SourceDocument,
  type SourceScalar,
  SpecError,
  suggest,
  toJsonPointer,
  validateDocument,
} from '@stackspec/core';
import { readLegacySpecInput } from './adapters/spec-file.js';
import { toPyValue } from './py-value.js';
import { isShellName } from './shell.js';
import type {
  CaseBranch,
  ImageArgument,
  ImageSpec,
  PackageRef,
  SpecLocation,
  ValidatorNode,
} from './spec.js';
import type { ValidatorDefinition, ValidatorLoadContext } from './validator-definition.js';

/** The validator keys Sahara defines. */
export const BUILTIN_VALIDATOR_TYPES = [
  'package',
  'script',
  'copy_script',
  'any',
  'all',
  'os_case',
  'argument_case',
  'argument_set',
] as const;

/** Argument names the engine sets itself. */
export const RESERVED_ARGUMENT_NAMES = ['distro', 'test_only'] as const;

/** Largest script or resource file read (bytes). */
export const MAX_RESOURCE_BYTES = 16 * 1024 * 1024;

/** An image spec's text, and the name of the file it came from (shown in diagnostics). */
export interface ImageSpecSource {
  text: string;
  file?: string | undefined;
}

/** Options of {@link loadImageSpec} and {@link validateImageSpec} with an {@link ImageSpecSource}. */
export interface ImageSpecReadOptions {
  /** Extra validator types by key; they win over built-ins with the same key. */
  validatorMap?: Readonly<Record<string, ValidatorDefinition<unknown>>>;
  /**
   * Reads the scripts the spec names (`script`, `copy_script`, custom
   * validators' resources), each looked up under the reader's roots in
   * order, the first non-empty file winning (Sahara's rule), with at most
   * {@link MAX_RESOURCE_BYTES} read. Give a confined reader (core's
   * `createNodeResourceReader({ roots })` over the spec's folder is what
   * every Sahara plugin does) so that a script path cannot leave the roots.
   * Default: a reader with no roots, so every script is `script-not-found`.
   */
  reader?: ResourceReader | undefined;
}

/**
 * Options of {@link loadImageSpec} and {@link validateImageSpec}, for both
 * forms of input; `resourceRoots`, `baseDir` and `filename` apply to the
 * deprecated string or URL form only.
 */
export interface LoadImageSpecOptions extends ImageSpecReadOptions {
  /**
   * Folders scripts are looked up in, in order; the first with a non-empty file
   * wins. Relative roots resolve against `baseDir`. Default: the spec file's
   * folder when loading a file (what every Sahara plugin passes), else none.
   *
   * @deprecated Pass a `reader` (core's `createNodeResourceReader({ roots })`) with an {@link ImageSpecSource}.
   */
  resourceRoots?: readonly string[];
  /**
   * Base for relative resource roots; default the spec file's folder, else the working directory.
   *
   * @deprecated Resolve the roots of the `reader` instead.
   */
  baseDir?: string;
  /**
   * File name shown in diagnostics when `input` is YAML text.
   *
   * @deprecated Pass `{ text, file }`.
   */
  filename?: string;
}

/** Outcome of {@link validateImageSpec}: the spec, or every problem found. */
export type ValidateImageSpecResult =
  | { ok: true; spec: ImageSpec; diagnostics: Diagnostic[] }
  | { ok: false; spec?: undefined; diagnostics: Diagnostic[] };

const PACKAGE_SHAPE = 'a package name, a mapping \'{name: {version: "…"}}\', or a list of those';

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Scripts of a spec given without a reader: there is nowhere to look them up.
const NO_RESOURCES = createMemoryResourceReader({}, { roots: [] });

class Loader {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    readonly doc: SourceDocument,
    readonly text: string,
    readonly validatorMap: Readonly<Record<string, ValidatorDefinition<unknown>>>,
    readonly reader: ResourceReader,
  ) {}

  error(
    path: readonly PathSegment[],
    code: string,
    message: string,
    options: { hint?: string; key?: boolean } = {},
  ) {
    this.diagnostics.push(
      this.doc.diagnostic(
        { code, message, path: toJsonPointer(path), ...(options.hint ? { hint: options.hint } : {}) },
        { key: options.key === true },
      ),
    );
  }

  warn(path: readonly PathSegment[], code: string, message: string, hint?: string) {
    this.diagnostics.push(
      this.doc.diagnostic(
        { code, message, severity: 'warning', path: toJsonPointer(path), ...(hint ? { hint } : {}) },
        { key: true },
      ),
    );
  }

  location(itemPath: readonly PathSegment[], type: string): SpecLocation {
    const range = this.doc.locate([...itemPath, type], { key: true });
    return {
      path: toJsonPointer(itemPath),
      ...(this.doc.file ? { file: this.doc.file } : {}),
      ...(range ? { line: range.line, column: range.column } : {}),
    };
  }

  /** The Python value of a mapping key as PyYAML builds it (`1` an int, `'1'` a string, `yes` a boolean). */
  typedKey(parent: readonly PathSegment[], key: string): PyValue {
    const scalar = this.doc.scalar([...parent, key], { key: true });
    if (!scalar?.source.trim()) return key;
    const v = scalar.value;
    if (typeof v === 'number') return Number.isInteger(v) && looksFloat(scalar) ? new PyFloat(v) : v;
    if (typeof v === 'string' || typeof v === 'boolean' || v === null) return v;
    return key;
  }

  /** A scalar value with the int/float distinction JavaScript loses (`2.0` stays a float). */
  typedValue(path: readonly PathSegment[], value: unknown): PyValue {
    if (typeof value === 'number' && Number.isInteger(value) && Number.isFinite(value)) {
      const scalar = this.doc.scalar(path);
      return scalar && looksFloat(scalar) ? new PyFloat(value) : value;
    }
    if (Array.isArray(value)) return value.map((v, i) => this.typedValue([...path, i], v));
    return toPyValue(value);
  }

  // ---- resources -------------------------------------------------------------------------------

  /**
   * The first non-empty regular file at `relPath` under the reader's roots,
   * read through the reader with a bound. `undefined` when no root has one;
   * `'reported'` when a problem was reported at `at`: the path leaves the
   * roots, the file is over {@link MAX_RESOURCE_BYTES}, or what is there
   * cannot be read (a FIFO, a device, a folder, no permission) and no later
   * root has the file (Sahara passes over a file it cannot read).
   */
  readResource(
    relPath: string,
    at: readonly PathSegment[],
  ): { file: string; content: string } | undefined | 'reported' {
    // An empty file counts as missing, as in Sahara; the next root may have it.
    const read = this.reader.read(relPath, { maxBytes: MAX_RESOURCE_BYTES, skipEmpty: true });
    if (read.ok) return { file: read.file, content: read.text };
    if (read.missing) return undefined;
    if (read.outside) {
      this.error(
        at,
        'image/spec/path-escapes-roots',
        `The resource path '${relPath}' leaves the resource roots; only paths inside them can be used.`,
        { hint: 'Use a relative path without ".." that stays below a resource root.' },
      );
    } else if (read.size !== undefined) {
      this.error(
        at,
        'image/spec/resource-too-large',
        `The resource '${relPath}' is ${read.size} bytes, more than the limit of ${MAX_RESOURCE_BYTES} bytes.`,
      );
    } else {
      this.error(
        at,
        'image/spec/resource-unreadable',
        `The resource '${relPath}' cannot be read: ${read.reason} (${read.diagnostic.file ?? relPath}).`,
        { hint: 'Resources must be regular files the user running the check can read.' },
      );
    }
    return 'reported';
  }

  // ---- validators ------------------------------------------------------------------------------

  knownTypes(): string[] {
    return [...new Set([...BUILTIN_VALIDATOR_TYPES, ...Object.keys(this.validatorMap)])];
  }

  validatorList(value: unknown, path: readonly PathSegment[], what: string): ValidatorNode[] {
    if (!Array.isArray(value)) {
      this.error(
        path,
        'image/spec/invalid-type',
        `${what} must be a list of validators, but it is ${describeType(value)}.`,
        { hint: 'Write each validator as a list item: "- package: wget".' },
      );
      return [];
    }
    const out: ValidatorNode[] = [];
    value.forEach((item, i) => {
      const node = this.validator(item, [...path, i]);
      if (node) out.push(node);
    });
    return out;
  }

  validator(item: unknown, path: readonly PathSegment[]): ValidatorNode | undefined {
    if (!isMapping(item) || Object.keys(item).length !== 1) {
      const count = isMapping(item) ? Object.keys(item).length : 0;
      this.error(
        path,
        'image/spec/not-single-key',
        isMapping(item)
          ? `A validator must be a mapping with exactly one key (its type), but this one has ${count} keys.`
          : `A validator must be a mapping with exactly one key (its type), but it is ${describeType(item)}.`,
        { hint: `Known types: ${this.knownTypes().join(', ')}.` },
      );
      return undefined;
    }
    const [type, value] = Object.entries(item)[0] as [string, unknown];
    const loc = this.location(path, type);
    const at = [...path, type];
    const custom = Object.hasOwn(this.validatorMap, type) ? this.validatorMap[type] : undefined;
    if (custom) return this.custom(custom as ValidatorDefinition, type, value, at, loc);
    switch (type) {
      case 'package':
        return { kind: 'package', type, ...loc, packages: this.packages(value, at) };
      case 'script':
        return this.script(value, at, loc);
      case 'copy_script':
        return this.copyScript(value, at, loc);
      case 'any':
      case 'all':
        return { kind: type, type, ...loc, validators: this.validatorList(value, at, `'${type}'`) };
      case 'os_case':
        return { kind: 'os_case', type, ...loc, cases: this.osCases(value, at) };
      case 'argument_case':
        return this.argumentCase(value, at, loc);
      case 'argument_set':
        return this.argumentSet(value, at, loc);
      default: {
        const hint = didYouMean(suggest(type, this.knownTypes()));
        this.error(at, 'image/spec/unknown-validator', `The validator type '${type}' is not known.`, {
          key: true,
          hint: hint ?? `Known types: ${this.knownTypes().join(', ')}.`,
        });
        return undefined;
      }
    }
  }

  custom(
    definition: ValidatorDefinition,
    type: string,
    value: unknown,
    at: readonly PathSegment[],
    loc: SpecLocation,
  ): ValidatorNode | undefined {
    const before = this.diagnostics.length;
    const ctx: ValidatorLoadContext = {
      path: toJsonPointer(at),
      type,
      error: (message, options = {}) =>
        this.error([...at, ...(options.at ?? [])], options.code ?? 'image/spec/invalid-custom', message, {
          ...(options.hint ? { hint: options.hint } : {}),
        }),
      loadValidators: (v, sub) => this.validatorList(v, [...at, ...sub], `'${[type, ...sub].join('.')}'`),
      readResource: (rel, sub = []) => {
        const r = this.readResource(rel, [...at, ...sub]);
        return r === 'reported' ? undefined : r;
      },
    };
    let config: unknown;
    try {
      config = definition.load(value, ctx);
    } catch (e) {
      this.error(
        at,
        'image/spec/invalid-custom',
        `The '${type}' validator could not be loaded: ${describeError(e)}`,
      );
      return undefined;
    }
    if (this.diagnostics.slice(before).some((d) => d.severity === 'error')) return undefined;
    return { kind: 'custom', type, ...loc, config, definition };
  }

  packages(value: unknown, at: readonly PathSegment[]): PackageRef[] {
    if (Array.isArray(value)) {
      if (!value.length) {
        this.error(
          at,
          'image/spec/empty-package-list',
          'The package list is empty; name at least one package.',
        );
      }
      const out: PackageRef[] = [];
      value.forEach((v, i) => {
        const p = this.onePackage(v, [...at, i], true);
        if (p) out.push(p);
      });
      return out;
    }
    const p = this.onePackage(value, at, false);
    return p ? [p] : [];
  }

  onePackage(value: unknown, at: readonly PathSegment[], inList: boolean): PackageRef | undefined {
    const shape = inList ? 'a package name or a mapping \'{name: {version: "…"}}\'' : PACKAGE_SHAPE;
    if (typeof value === 'string') {
      return this.packageName(value, at) ? { name: value } : undefined;
    }
    if (isMapping(value) && Object.keys(value).length === 1) {
      const [name, props] = Object.entries(value)[0] as [string, unknown];
      if (!isMapping(props)) {
        this.error(
          [...at, name],
          'image/spec/invalid-type',
          `The properties of package '${name}' must be a mapping such as '{version: "1.2"}', but they are ${describeType(props)}.`,
        );
        return undefined;
      }
      if (!this.packageName(name, [...at, name], true)) return undefined;
      const version = props.version;
      if (version === undefined) return { name };
      if (typeof version !== 'string' || !version) {
        this.error(
          [...at, name, 'version'],
          'image/spec/invalid-type',
          `The version of package '${name}' must be a non-empty string, but it is ${describeType(version)}.`,
          { hint: 'Quote versions so YAML keeps them as text: version: "8".' },
        );
        return undefined;
      }
      return { name, version };
    }
    this.error(
      at,
      'image/spec/invalid-type',
      `A package must be ${shape}, but it is ${describeType(value)}.`,
    );
    return undefined;
  }

  packageName(name: string, at: readonly PathSegment[], key = false): boolean {
    if (!name) {
      this.error(at, 'image/spec/empty-value', 'A package name must not be empty.', { key });
      return false;
    }
    if (name.startsWith('-')) {
      this.error(
        at,
        'image/spec/bad-package-name',
        `The package name '${name}' starts with '-', which the package tools would read as an option.`,
        { key },
      );
      return false;
    }
    return true;
  }

  scriptProps(
    value: unknown,
    at: readonly PathSegment[],
    type: 'script' | 'copy_script',
  ): { name: string; props: Record<string, unknown> } | undefined {
    if (typeof value === 'string') return { name: value, props: {} };
    if (isMapping(value) && Object.keys(value).length === 1) {
      const [name, props] = Object.entries(value)[0] as [string, unknown];
      if (!isMapping(props)) {
        this.error(
          [...at, name],
          'image/spec/invalid-type',
          `The properties of ${type} '${name}' must be a mapping (env_vars, output, inline), but they are ${describeType(props)}.`,
        );
        return undefined;
      }
      return { name, props };
    }
    this.error(
      at,
      'image/spec/invalid-type',
      `A ${type} must be a path or a mapping '{path: {env_vars: [...], output: name, inline: text}}', but it is ${describeType(value)}${isMapping(value) ? ` with ${Object.keys(value).length} keys` : ''}.`,
    );
    return undefined;
  }

  nonEmptyString(
    props: Record<string, unknown>,
    key: string,
    at: readonly PathSegment[],
  ): string | undefined {
    if (!Object.hasOwn(props, key)) return undefined;
    const v = props[key];
    if (typeof v !== 'string' || !v) {
      this.error(
        [...at, key],
        'image/spec/invalid-type',
        `'${key}' must be a non-empty string, but it is ${typeof v === 'string' ? 'empty' : describeType(v)}.`,
      );
      return undefined;
    }
    return v;
  }

  body(
    name: string,
    inline: string | undefined,
    at: readonly PathSegment[],
  ): { body: string; file?: string } | undefined {
    if (inline) return { body: inline };
    const found = this.readResource(name, at);
    if (found === 'reported') return undefined;
    if (!found) {
      this.error(
        at,
        'image/spec/script-not-found',
        `The script '${name}' was not found in any resource root.`,
        {
          hint: this.reader.roots.length
            ? `Looked in: ${this.reader.roots.join(', ')}. Empty files count as missing.`
            : 'No resource roots were given; pass a reader with roots (or load the spec from a file).',
        },
      );
      return undefined;
    }
    return { body: found.content, file: found.file };
  }

  script(value: unknown, at: readonly PathSegment[], loc: SpecLocation): ValidatorNode | undefined {
    const parsed = this.scriptProps(value, at, 'script');
    if (!parsed) return undefined;
    const { name, props } = parsed;
    const pat = typeof value === 'string' ? at : [...at, name];
    const envVars: string[] = [];
    if (Object.hasOwn(props, 'env_vars')) {
      const list = props.env_vars;
      if (!Array.isArray(list)) {
        this.error(
          [...pat, 'env_vars'],
          'image/spec/invalid-type',
          `'env_vars' must be a list of variable names, but it is ${describeType(list)}.`,
        );
      } else {
        list.forEach((v, i) => {
          if (typeof v !== 'string') {
            this.error(
              [...pat, 'env_vars', i],
              'image/spec/invalid-type',
              `A variable name in 'env_vars' must be a string, but it is ${describeType(v)}.`,
            );
          } else if (!isShellName(v)) {
            this.error(
              [...pat, 'env_vars', i],
              'image/spec/bad-variable-name',
              `'${v}' cannot be exported to a script: names use letters, digits and '_' and do not start with a digit.`,
            );
          } else envVars.push(v);
        });
      }
    }
    const output = this.nonEmptyString(props, 'output', pat);
    const inline = this.nonEmptyString(props, 'inline', pat);
    const body = this.body(name, inline, typeof value === 'string' ? at : [...at, name]);
    if (!body) return undefined;
    return {
      kind: 'script',
      type: 'script',
      ...loc,
      name,
      inline: inline !== undefined,
      body: body.body,
      ...(body.file ? { scriptPath: body.file } : {}),
      envVars,
      ...(output ? { output } : {}),
    };
  }

  copyScript(value: unknown, at: readonly PathSegment[], loc: SpecLocation): ValidatorNode | undefined {
    const parsed = this.scriptProps(value, at, 'copy_script');
    if (!parsed) return undefined;
    const { name, props } = parsed;
    const pat = typeof value === 'string' ? at : [...at, name];
    const output = this.nonEmptyString(props, 'output', pat);
    const inline = this.nonEmptyString(props, 'inline', pat);
    const segments = name.split('/');
    const target = segments[2];
    if (target === undefined || !target || target === '.' || target === '..') {
      this.error(
        typeof value === 'string' ? at : [...at, name],
        'image/spec/copy-script-path',
        `The copy_script path '${name}' needs a file name as its third '/'-separated part (as in 'common/resources/file.sh'); the file is copied to /tmp under that name.`,
        { key: typeof value !== 'string' },
      );
      return undefined;
    }
    const body = this.body(name, inline, typeof value === 'string' ? at : [...at, name]);
    if (!body) return undefined;
    return {
      kind: 'copy_script',
      type: 'copy_script',
      ...loc,
      name,
      inline: inline !== undefined,
      body: body.body,
      ...(body.file ? { scriptPath: body.file } : {}),
      target: `/tmp/${target}`,
      ...(output ? { output } : {}),
    };
  }

  osCases(value: unknown, at: readonly PathSegment[]): CaseBranch[] {
    if (!Array.isArray(value)) {
      this.error(
        at,
        'image/spec/invalid-type',
        `'os_case' must be a list of one-key mappings '{distro or family: [validators]}', but it is ${describeType(value)}.`,
      );
      return [];
    }
    const out: CaseBranch[] = [];
    value.forEach((item, i) => {
      const path = [...at, i];
      if (!isMapping(item) || Object.keys(item).length !== 1) {
        this.error(
          path,
          'image/spec/not-single-key',
          `Each os_case branch must be a mapping with exactly one key (a distribution or family such as 'ubuntu' or 'redhat'), but it is ${isMapping(item) ? `a mapping with ${Object.keys(item).length} keys` : describeType(item)}.`,
        );
        return;
      }
      const [label, list] = Object.entries(item)[0] as [string, unknown];
      out.push(this.branch(path, label, list, `os_case branch '${label}'`));
    });
    return out;
  }

  branch(parent: readonly PathSegment[], label: string, list: unknown, what: string): CaseBranch {
    const range = this.doc.locate([...parent, label], { key: true });
    return {
      key: this.typedKey(parent, label),
      label,
      path: toJsonPointer([...parent, label]),
      ...(this.doc.file ? { file: this.doc.file } : {}),
      ...(range ? { line: range.line, column: range.column } : {}),
      validators: this.validatorList(list, [...parent, label], `The ${what}`),
    };
  }

  strictKeys(
    value: Record<string, unknown>,
    allowed: readonly string[],
    at: readonly PathSegment[],
    type: string,
  ) {
    for (const k of Object.keys(value)) {
      if (!allowed.includes(k)) {
        this.error([...at, k], 'image/spec/unknown-key', `The key '${k}' is not allowed in '${type}'.`, {
          key: true,
          hint: didYouMean(suggest(k, allowed)) ?? `Allowed keys: ${allowed.join(', ')}.`,
        });
      }
    }
    for (const k of allowed) {
      if (!Object.hasOwn(value, k)) {
        this.error(at, 'image/spec/missing-key', `The key '${k}' is required in '${type}'.`);
      }
    }
  }

  argumentCase(value: unknown, at: readonly PathSegment[], loc: SpecLocation): ValidatorNode | undefined {
    if (!isMapping(value)) {
      this.error(
        at,
        'image/spec/invalid-type',
        `'argument_case' must be a mapping with 'argument_name' and 'cases', but it is ${describeType(value)}.`,
      );
      return undefined;
    }
    const before = this.diagnostics.length;
    this.strictKeys(value, ['argument_name', 'cases'], at, 'argument_case');
    const argumentName = this.nonEmptyString(value, 'argument_name', at);
    const cases: CaseBranch[] = [];
    if (Object.hasOwn(value, 'cases')) {
      const c = value.cases;
      if (!isMapping(c)) {
        this.error(
          [...at, 'cases'],
          'image/spec/invalid-type',
          `'cases' must be a mapping of argument values to validator lists, but it is ${describeType(c)}.`,
        );
      } else if (!Object.keys(c).length) {
        this.error([...at, 'cases'], 'image/spec/empty-value', `'cases' must have at least one case.`);
      } else {
        for (const [label, list] of Object.entries(c)) {
          cases.push(this.branch([...at, 'cases'], label, list, `case '${label}'`));
        }
      }
    }
    if (this.diagnostics.length > before || argumentName === undefined) return undefined;
    return { kind: 'argument_case', type: 'argument_case', ...loc, argumentName, cases };
  }

  argumentSet(value: unknown, at: readonly PathSegment[], loc: SpecLocation): ValidatorNode | undefined {
    if (!isMapping(value)) {
      this.error(
        at,
        'image/spec/invalid-type',
        `'argument_set' must be a mapping with 'argument_name' and 'value', but it is ${describeType(value)}.`,
      );
      return undefined;
    }
    const before = this.diagnostics.length;
    this.strictKeys(value, ['argument_name', 'value'], at, 'argument_set');
    const argumentName = this.nonEmptyString(value, 'argument_name', at);
    const v = this.nonEmptyString(value, 'value', at);
    if (this.diagnostics.length > before || argumentName === undefined || v === undefined) return undefined;
    return { kind: 'argument_set', type: 'argument_set', ...loc, argumentName, value: v };
  }

  // ---- arguments -------------------------------------------------------------------------------

  arguments(value: unknown): ImageArgument[] {
    const at = ['arguments'];
    if (!isMapping(value)) {
      this.error(
        at,
        'image/spec/invalid-type',
        `'arguments' must be a mapping of argument names to definitions, but it is ${describeType(value)}.`,
      );
      return [];
    }
    const out: ImageArgument[] = [];
    for (const [name, def] of Object.entries(value)) {
      const path = [...at, name];
      const range = this.doc.locate(path, { key: true });
      const loc = {
        path: toJsonPointer(path),
        ...(this.doc.file ? { file: this.doc.file } : {}),
        ...(range ? { line: range.line, column: range.column } : {}),
      };
      if ((RESERVED_ARGUMENT_NAMES as readonly string[]).includes(name)) {
        this.error(
          path,
          'image/spec/reserved-argument',
          `The argument name '${name}' is reserved (reserved names: ${RESERVED_ARGUMENT_NAMES.join(', ')}).`,
          { key: true, hint: 'The engine sets distro and test_only itself; pick another name.' },
        );
        continue;
      }
      if (!isMapping(def)) {
        this.error(
          path,
          'image/spec/invalid-type',
          `The definition of argument '${name}' must be a mapping (description, default, required, choices), but it is ${describeType(def)}.`,
        );
        continue;
      }
      const { description, default: dflt, required, choices, ...extra } = def;
      const arg: ImageArgument = { name, ...loc, required: pyTruthy(toPyValue(required)), extra };
      if (description !== undefined && description !== null) arg.description = String(description);
      if (Object.hasOwn(def, 'default')) arg.default = this.typedValue([...path, 'default'], dflt);
      if (Object.hasOwn(def, 'choices') && choices !== null) {
        if (!Array.isArray(choices)) {
          this.error(
            [...path, 'choices'],
            'image/spec/invalid-type',
            `The choices of argument '${name}' must be a list, but they are ${describeType(choices)}.`,
          );
          continue;
        }
        arg.choices = this.typedValue([...path, 'choices'], choices) as PyValue[];
      }
      if (!pyTruthy(arg.default) && !arg.required) {
        this.error(
          path,
          'image/spec/missing-default',
          `Argument ${name} is not required and must specify a default value.`,
          {
            key: true,
            hint: 'Give it a non-empty default, or mark it required: true.',
          },
        );
        continue;
      }
      if (
        arg.choices?.length &&
        pyTruthy(arg.default) &&
        !arg.choices.some((c) => pyEquals(c, arg.default as PyValue))
      ) {
        this.error(
          [...path, 'default'],
          'image/spec/default-not-in-choices',
          `Argument ${name} specifies a default which is not one of its choices.`,
          { hint: `Choices: ${arg.choices.map(pyRepr).join(', ')}.` },
        );
        continue;
      }
      out.push(arg);
    }
    return out;
  }
}

// Whether a number was written as a float: tagged so, or (unquoted) with a
// '.', which every YAML 1.1 float has (`2.0`, `.inf`, `1:30.5`) and no int does.
function looksFloat(scalar: SourceScalar): boolean {
  if (scalar.tag === 'tag:yaml.org,2002:float') return true;
  const text = scalar.source.trim();
  return !/^['"]/.test(text) && text.includes('.');
}

/**
 * Reads and checks an image spec, collecting every problem instead of stopping
 * at the first. The spec is `source.text`, named `source.file` in
 * diagnostics; the scripts it names are read through `options.reader` and
 * nothing else: the loader touches no file system itself.
 *
 * Error codes: `yaml/*` for unreadable text, and `image/spec/*`:
 * `not-a-mapping`, `missing-key`, `invalid-type`, `not-single-key`,
 * `unknown-validator`, `unknown-key`, `empty-value`, `empty-package-list`,
 * `bad-package-name`, `bad-variable-name`, `script-not-found`,
 * `path-escapes-roots`, `resource-too-large`, `resource-unreadable`, `copy-script-path`,
 * `reserved-argument`, `missing-default`, `default-not-in-choices`,
 * `invalid-custom`, `unreadable` (warnings: `unknown-top-level-key`).
 *
 * @example
 * const file = 'plugins/cdh/image.yaml';
 * const reader = createNodeResourceReader({ roots: ['plugins/cdh'] });
 * const r = validateImageSpec({ text: readFileSync(file, 'utf8'), file }, { reader });
 */
export function validateImageSpec(
  source: ImageSpecSource,
  options?: ImageSpecReadOptions,
): ValidateImageSpecResult;
/**
 * The form before readers: `input` is YAML text, or a path (a URL, a string
 * ending in `.yaml`, `.yml` or `.json`, an existing file, or, unless
 * `filename` says the input is that file's text, any single line without a
 * colon, which no spec text can be), read from the disk with scripts under
 * `resourceRoots`. A file that cannot be read is `image/spec/unreadable`.
 * With `options.reader`, the string is always text.
 *
 * @deprecated Pass `{ text, file }` and a `reader`; the string and URL form goes in the next minor version.
 */
export function validateImageSpec(
  input: string | URL,
  options?: LoadImageSpecOptions,
): ValidateImageSpecResult;
export function validateImageSpec(
  input: ImageSpecSource | string | URL,
  options: LoadImageSpecOptions = {},
): ValidateImageSpecResult {
  options = optionsOf(options, 'validateImageSpec', 'image/invalid-argument');
  if (typeof input !== 'string' && !(input instanceof URL)) {
    requireObject(input, 'The source of validateImageSpec', 'image/invalid-argument');
    requireString(input.text, 'The text of validateImageSpec', 'image/invalid-argument');
  }
  return checkInput(input, options);
}

function checkInput(
  input: ImageSpecSource | string | URL,
  options: LoadImageSpecOptions,
): ValidateImageSpecResult {
  if (typeof input === 'string' || input instanceof URL) {
    const legacy = readLegacySpecInput(input, { ...options, maxBytes: MAX_RESOURCE_BYTES });
    if (!legacy.ok) return { ok: false, diagnostics: legacy.diagnostics };
    return checkSource(legacy.source, legacy.reader, options.validatorMap);
  }
  return checkSource(input, options.reader ?? NO_RESOURCES, options.validatorMap);
}

function checkSource(
  source: ImageSpecSource,
  reader: ResourceReader,
  validatorMap: LoadImageSpecOptions['validatorMap'],
): ValidateImageSpecResult {
  const { text, file } = source;
  const parsed = validateDocument(text, {
    ...(file ? { filename: file } : {}),
    format: 'yaml',
    yamlVersion: '1.1',
    // PyYAML keeps the last of duplicate keys silently; we keep it too, but say so.
    duplicateKeys: 'warn',
  });
  if (!parsed.ok) return { ok: false, diagnostics: parsed.diagnostics };
  const doc = parsed.document;
  const loader = new Loader(doc, text, validatorMap ?? {}, reader);
  loader.diagnostics.push(...doc.warnings);
  const root = doc.value;
  let spec: ImageSpec | undefined;
  if (!isMapping(root)) {
    loader.error(
      [],
      'image/spec/not-a-mapping',
      `The spec must be a mapping with a 'validators' list, but it is ${describeType(root)}.`,
    );
  } else {
    for (const key of Object.keys(root)) {
      if (key !== 'validators' && key !== 'arguments') {
        loader.warn(
          [key],
          'image/spec/unknown-top-level-key',
          `The top-level key '${key}' is not used; only 'validators' and 'arguments' are.`,
          didYouMean(suggest(key, ['validators', 'arguments'])),
        );
      }
    }
    const args = Object.hasOwn(root, 'arguments') ? loader.arguments(root.arguments) : [];
    let validators: ValidatorNode[] = [];
    if (!Object.hasOwn(root, 'validators')) {
      loader.error([], 'image/spec/missing-key', `The key 'validators' is required at the top level.`, {
        hint: didYouMean(suggest('validators', Object.keys(root))),
      });
    } else {
      validators = loader.validatorList(root.validators, ['validators'], `'validators'`);
    }
    spec = {
      ...(file ? { file } : {}),
      arguments: args,
      validators,
      resourceRoots: [...reader.roots],
      warnings: loader.diagnostics.filter((d) => d.severity !== 'error'),
    };
  }
  if (hasErrors(loader.diagnostics) || !spec) return { ok: false, diagnostics: loader.diagnostics };
  return { ok: true, spec, diagnostics: loader.diagnostics };
}

/**
 * Loads an image spec into validators ready to run: `source.text`, with the
 * scripts it names read through `options.reader`. Throws `SpecError`
 * carrying every located problem (file, line, what was expected) when the
 * spec is malformed; see {@link validateImageSpec} for codes.
 *
 * @example
 * const file = 'plugins/cdh/image.yaml';
 * const reader = createNodeResourceReader({ roots: ['plugins/cdh'] });
 * const spec = loadImageSpec({ text: readFileSync(file, 'utf8'), file }, { reader });
 * const report = await validateImage(spec, createLocalRemote(), { reconcile: false });
 */
export function loadImageSpec(source: ImageSpecSource, options?: ImageSpecReadOptions): ImageSpec;
/**
 * The form before readers: YAML text or a path, as {@link validateImageSpec}'s string form reads it.
 *
 * @deprecated Pass `{ text, file }` and a `reader`; the string and URL form goes in the next minor version.
 */
export function loadImageSpec(input: string | URL, options?: LoadImageSpecOptions): ImageSpec;
export function loadImageSpec(
  input: ImageSpecSource | string | URL,
  options: LoadImageSpecOptions = {},
): ImageSpec {
  const result = checkInput(input, options);
  if (!result.ok) {
    const first = result.diagnostics.find((d) => d.severity === 'error');
    throw new SpecError(undefined, {
      code: first?.code ?? 'image/spec/invalid',
      diagnostics: result.diagnostics,
    });
  }
  return result.spec;
}
