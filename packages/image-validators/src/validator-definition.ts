import type { PathSegment, PyValue } from '@stackspec/core';
import type { ExecOptions, ExecResult, WriteFileOptions } from './remote.js';
import type { ValidatorNode } from './spec.js';

/** What a custom validator's `load` may use while its YAML value is read. */
export interface ValidatorLoadContext {
  /** JSON pointer of the validator's value (the list item plus the type key). */
  readonly path: string;
  /** The validator type key. */
  readonly type: string;
  /**
   * Records a spec problem at `at` (segments below the value; default the value
   * itself). Loading continues so every problem is reported; the spec then
   * fails to load with a `SpecError`.
   */
  error(message: string, options?: { at?: readonly PathSegment[]; code?: string; hint?: string }): void;
  /** Loads a nested list of validators found at `at` below the value. */
  loadValidators(value: unknown, at: readonly PathSegment[]): ValidatorNode[];
  /**
   * Reads a resource (script, data file) by path relative to the resource roots:
   * the first root holding a non-empty file wins. Returns `undefined` when no
   * root has it; records an error and returns `undefined` when the path would
   * leave the roots.
   */
  readResource(
    relativePath: string,
    at?: readonly PathSegment[],
  ): { file: string; content: string } | undefined;
}

/** What a custom validator's `validate` may use. Commands go through it so they are recorded and counted. */
export interface ValidatorRunContext {
  /** `true` to fix the machine, `false` to only check it. */
  readonly reconcile: boolean;
  /** The machine's distribution id (lower case). */
  readonly distro: string;
  /** Its family (`debian`, `redhat`) or `undefined` when unknown. */
  readonly family: string | undefined;
  /** The shared variable map (declared arguments, `distro`, outputs…). */
  readonly variables: Map<string, PyValue>;
  /** Runs a command (as root unless `asRoot: false`); resolves whatever the exit code. */
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Like `exec`, but a non-zero exit fails the validator with the command and its output. */
  run(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Writes a file (as root unless `asRoot: false`). */
  writeFile(path: string, content: string | Uint8Array, options?: WriteFileOptions): Promise<void>;
  /** Fails the validator (inside `any`, this lets the next branch try). */
  fail(message: string): never;
  /** Runs nested validators in order, like `all`, optionally in another mode. */
  validate(validators: readonly ValidatorNode[], options?: { reconcile?: boolean }): Promise<void>;
}

/**
 * A validator type that a spec can use by its key, passed in `validatorMap`.
 * Custom types take precedence over the built-in ones with the same key.
 */
export interface ValidatorDefinition<Config = unknown> {
  /** Reads and checks the YAML value; report problems with `ctx.error`. */
  load(value: unknown, ctx: ValidatorLoadContext): Config;
  /** Checks (and when `ctx.reconcile`, fixes) the machine; `ctx.fail` on failure. */
  validate(config: Config, ctx: ValidatorRunContext): Promise<void>;
  /** One line for `explain`. */
  describe?(config: Config): string;
  /** Nested validators, so `explain` and package prefetching can see them. */
  children?(config: Config): readonly ValidatorNode[];
}

/**
 * Declares a custom validator type with its configuration type inferred.
 *
 * @example
 * const fileExists = defineValidator({
 *   load: (value, ctx) => {
 *     if (typeof value !== 'string') ctx.error('file_exists needs a path.');
 *     return String(value);
 *   },
 *   validate: async (path, ctx) => {
 *     await ctx.run(`test -e ${shellQuote(path)}`);
 *   },
 * });
 * loadImageSpec(text, { validatorMap: { file_exists: fileExists } });
 */
export function defineValidator<Config>(
  definition: ValidatorDefinition<Config>,
): ValidatorDefinition<Config> {
  return definition;
}
