import { randomUUID } from 'node:crypto';
import {
  createDiagnostic,
  type Diagnostic,
  describeError,
  isStackspecError,
  type PyValue,
  parseWithSchema,
  pyEquals,
  pyStr,
  requireObject,
  SpecError,
} from '@stackspec/core';
import { z } from 'zod';
import {
  batchCheckCommand,
  type CommandStyle,
  CommandStyleSchema,
  checkCommand,
  installCommand,
  type PackageFamily,
  packageWord,
  type RedhatInstaller,
  RedhatInstallerSchema,
  readBatchCheck,
  runScriptCommand,
  scriptFile,
  TAR_COMMAND,
} from './commands.js';
import { DISTRO_FAMILIES, familyOf, SAHARA_DISTRO_FAMILIES } from './families.js';
import { fromPyValue, toPyValue } from './py-value.js';
import type { ExecOptions, ExecResult, Remote, WriteFileOptions } from './remote.js';
import { shellQuote } from './shell.js';
import type {
  CaseBranch,
  ImageSpec,
  PackageNode,
  PackageRef,
  ScriptNode,
  SpecLocation,
  ValidatorNode,
} from './spec.js';
import { tarArchive } from './tar.js';
import type { ValidatorRunContext } from './validator-definition.js';

const ArgumentValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const isFunction = (v: unknown) => typeof v === 'function';

/**
 * The options {@link validateImage} accepts, as a schema: unknown keys and
 * values of the wrong type are refused before anything runs.
 */
export const ValidateImageOptionsSchema = z.strictObject({
  /** Fix what is wrong (install packages, run scripts in fix mode). Default `true`, as in the spec. */
  reconcile: z.boolean().optional(),
  /**
   * Values for declared arguments. Undeclared names are dropped (as Sahara
   * does); missing ones take their default; `choices` are enforced.
   */
  arguments: z.record(z.string(), ArgumentValueSchema).optional(),
  /**
   * Extra variables for scripts (the spec's `env_map`): kept whatever their
   * name, exported only to scripts that list them in `env_vars`. They may not
   * reuse a declared argument's name or a reserved one.
   */
  env: z.record(z.string(), z.string()).optional(),
  /**
   * `batched` (default): package checks of many validators in one command,
   * scripts in one round trip, exact apt pins, Debian known as a family.
   * `sahara`: Sahara's exact command sequence, nothing batched.
   */
  mode: CommandStyleSchema.optional(),
  /** Distribution → family entries added to (and overriding) the built-in map. */
  families: z.record(z.string(), z.string()).optional(),
  /** Red Hat family installer in batched mode; default `auto` (dnf where present, else yum). */
  redhatInstaller: RedhatInstallerSchema.optional(),
  /** Absolute directory for script files on the machine; default `/tmp`. */
  tempDir: z
    .string()
    .refine((v) => v.startsWith('/'), { error: 'tempDir must be an absolute path (starting with /).' })
    .optional(),
  /** Called when a validator starts and ends, for live progress. */
  onProgress: z
    .custom<(event: ValidationEvent) => void>(isFunction, { error: 'onProgress must be a function.' })
    .optional(),
  /** Script file names in `sahara` mode (default random UUIDs); injectable for tests. */
  uuid: z.custom<() => string>(isFunction, { error: 'uuid must be a function.' }).optional(),
  /** Output kept per command in the report (characters per stream); default 65536. */
  maxOutputChars: z.number().int().min(0).optional(),
});

/** Options of {@link validateImage}; {@link ValidateImageOptionsSchema} documents each one. */
export type ValidateImageOptions = z.input<typeof ValidateImageOptionsSchema>;

/** One remote round trip a validator made. */
export interface CommandRecord {
  op: 'exec' | 'write';
  /** The command (`exec`), or the target path (`write`). */
  command: string;
  asRoot: boolean;
  purpose: 'prefetch' | 'check' | 'install' | 'script' | 'chmod' | 'write' | 'custom';
  exitCode?: number;
  stdout?: string;
  stderr?: string;
}

/** What happened to one validator in one pass (an `any` may run a child twice: check, then fix). */
export interface ValidatorResult extends SpecLocation {
  type: string;
  kind: ValidatorNode['kind'];
  /** Short text such as `package wget, curl` or `script centos/wget_repo`. */
  label: string;
  /** Nesting level; top-level validators are 0. */
  depth: number;
  mode: 'check' | 'fix';
  /** `fixed` when something was installed; `skipped` when no case matched. */
  status: 'running' | 'passed' | 'fixed' | 'failed' | 'skipped';
  commands: CommandRecord[];
  message?: string;
  /** For `script` and `copy_script`: the resource file the script came from (`file` is the spec). */
  scriptPath?: string;
}

/** Why a validation failed. */
export interface ValidationFailure extends Partial<SpecLocation> {
  /** `image/command-failed`, `image/all-failed`, `image/argument-required`, `image/argument-choice`, `image/argument-invalid`, `image/argument-not-found`, `image/unknown-distro`, `image/env-conflict`, `image/env-invalid`, `image/custom-failed`, `image/validator-crashed`, `image/shell/nul-byte` (a script output that a later script exports holds a NUL byte), or a `image/remote/*` code when the machine could not be reached. */
  code: string;
  /** The validator type, when a validator failed. */
  type?: string;
  message: string;
  /** The message Sahara would give (without its `Error ID` lines). */
  saharaMessage: string;
  /** For `script` and `copy_script`: the resource file the script came from (`file` is the spec). */
  scriptPath?: string;
  command?: string;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  /** For `any`: why each branch failed in the last pass. */
  causes?: ValidationFailure[];
}

/** The outcome of {@link validateImage}. */
export interface ValidationReport {
  ok: boolean;
  reconcile: boolean;
  mode: CommandStyle;
  distro?: string;
  family?: string;
  /** Declared arguments (and `env` entries) as they were when validators started. */
  arguments: Record<string, unknown>;
  /** The variable map at the end, as scripts would see the values. */
  variables: Record<string, string>;
  /** One entry per validator run, in the order they started. */
  results: ValidatorResult[];
  failure?: ValidationFailure;
  /** The failure as a located diagnostic (file, line, JSON pointer). */
  diagnostics: Diagnostic[];
  /** Remote round trips made (commands, file writes and the distro probe). */
  commandCount: number;
}

/** Progress of a run, for live output. */
export type ValidationEvent =
  | { type: 'start'; result: ValidatorResult }
  | { type: 'end'; result: ValidatorResult }
  | { type: 'prefetch'; packages: number };

const VALIDATION_PREFIX = 'Image has failed validation: ';

class Failure extends Error {
  constructor(readonly detail: ValidationFailure) {
    super(detail.message);
  }
}

/** Stops the whole run: not a verdict about the image (a remote error, a crashing custom validator). */
class Abort extends Error {
  constructor(readonly detail: ValidationFailure) {
    super(detail.message);
  }
}

function printable(text: string): string {
  // Python's string.printable: ASCII letters, digits, punctuation and whitespace (tab to carriage return).
  let out = '';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if ((c >= 0x20 && c <= 0x7e) || (c >= 0x09 && c <= 0x0d)) out += ch;
  }
  return out;
}

/** Sahara's message for a failed remote command (without the `Error ID` line). */
export function saharaCommandMessage(command: string, r: ExecResult): string {
  let m = `Error during command execution: "${command}"`;
  if (r.exitCode) m += `\nReturn code: ${r.exitCode}`;
  if (r.stderr) m += `\nSTDERR:\n${printable(r.stderr)}`;
  if (r.stdout) m += `\nSTDOUT:\n${printable(r.stdout)}`;
  return m;
}

function labelOf(node: ValidatorNode): string {
  switch (node.kind) {
    case 'package':
      return `package ${node.packages.map((p) => (p.version ? `${p.name} (${p.version})` : p.name)).join(', ')}`;
    case 'script':
      return `script ${node.name}${node.inline ? ' (inline)' : ''}`;
    case 'copy_script':
      return `copy_script ${node.name} → ${node.target}`;
    case 'all':
    case 'any':
      return `${node.kind} (${node.validators.length})`;
    case 'os_case':
      return `os_case ${node.cases.map((c) => c.label).join('|')}`;
    case 'argument_case':
      return `argument_case ${node.argumentName}`;
    case 'argument_set':
      return `argument_set ${node.argumentName}=${node.value}`;
    default: {
      const text = node.definition.describe?.(node.config as never);
      return text ? `${node.type} ${text}` : node.type;
    }
  }
}

function firstLine(text: string): string {
  const line = text
    .trim()
    .split('\n')
    .find((l) => l.trim());
  return line ? (line.length > 200 ? `${line.slice(0, 197)}...` : line) : '';
}

interface RunOptions {
  mode: CommandStyle;
  families: Readonly<Record<string, string>>;
  redhatInstaller: RedhatInstaller;
  tempDir: string;
  uuid: () => string;
  maxOutput: number;
  onProgress: ((event: ValidationEvent) => void) | undefined;
}

class Run {
  readonly results: ValidatorResult[] = [];
  commandCount = 0;
  distro = '';
  family: string | undefined;
  readonly vars = new Map<string, PyValue>();
  /** Batched mode: package word → installed. Cleared whenever the machine may have changed. */
  readonly cache = new Map<string, boolean>();
  batchBroken = false;
  /** Batched mode: `tar` failed once, so copy_script falls back to one write per file. */
  tarBroken = false;
  /** copy_script nodes whose file a batched `tar` already wrote, with the command to show on the first. */
  readonly preWritten = new Map<ValidatorNode, CommandRecord[]>();
  current: ValidatorResult | undefined;

  constructor(
    readonly spec: ImageSpec,
    readonly remote: Remote,
    readonly opts: RunOptions,
  ) {}

  clip(text: string): string {
    return text.length > this.opts.maxOutput ? `${text.slice(0, this.opts.maxOutput)}\n[… truncated]` : text;
  }

  async exec(
    command: string,
    purpose: CommandRecord['purpose'],
    options: ExecOptions = {},
  ): Promise<ExecResult> {
    const asRoot = options.asRoot ?? true;
    const record: CommandRecord = { op: 'exec', command, asRoot, purpose };
    this.current?.commands.push(record);
    this.commandCount += 1;
    let r: ExecResult;
    try {
      r = await this.remote.exec(command, { ...options, asRoot });
    } catch (e) {
      throw this.abort(e, command);
    }
    record.exitCode = r.exitCode;
    record.stdout = this.clip(r.stdout);
    record.stderr = this.clip(r.stderr);
    return r;
  }

  async write(path: string, content: string | Uint8Array, options: WriteFileOptions = {}): Promise<void> {
    const asRoot = options.asRoot ?? true;
    this.current?.commands.push({ op: 'write', command: path, asRoot, purpose: 'write' });
    this.commandCount += 1;
    try {
      await this.remote.writeFile(path, content, { ...options, asRoot });
    } catch (e) {
      throw this.abort(e, `write ${path}`);
    }
  }

  abort(e: unknown, command: string): Abort {
    const code = isStackspecError(e) ? e.code : 'image/remote/failed';
    const message = `The machine could not run \`${command}\`: ${describeError(e)}`;
    return new Abort({ code, message, saharaMessage: message, command });
  }

  /** A failed command as a located failure; `saharaCommand` is the command text Sahara's message names, when it differs. */
  failCommand(
    node: ValidatorNode,
    command: string,
    r: ExecResult,
    what: string,
    saharaCommand = command,
  ): Failure {
    const detail = firstLine(r.stderr) || firstLine(r.stdout);
    return new Failure({
      code: 'image/command-failed',
      type: node.type,
      path: node.path,
      ...(node.file ? { file: node.file } : {}),
      ...(node.line ? { line: node.line, column: node.column } : {}),
      ...scriptPathOf(node),
      message: `${what}: \`${command}\` exited with status ${r.exitCode}${detail ? ` (${detail})` : ''}.`,
      saharaMessage: VALIDATION_PREFIX + saharaCommandMessage(saharaCommand, r),
      command,
      exitCode: r.exitCode,
      stdout: this.clip(r.stdout),
      stderr: this.clip(r.stderr),
    });
  }

  failAt(node: SpecLocation & { type?: string }, code: string, message: string, sahara: string): Failure {
    return new Failure({
      code,
      ...(node.type ? { type: node.type } : {}),
      path: node.path,
      ...(node.file ? { file: node.file } : {}),
      ...(node.line ? { line: node.line, column: node.column } : {}),
      message,
      saharaMessage: VALIDATION_PREFIX + sahara,
    });
  }

  // Like Sahara, os_case and package read the distribution from the variable map each
  // time, so a script output or argument_set that rewrites `distro` takes effect.
  currentDistro(): PyValue {
    return this.vars.has('distro') ? (this.vars.get('distro') as PyValue) : this.distro;
  }

  currentFamily(): string | undefined {
    const d = this.currentDistro();
    return typeof d === 'string' ? familyOf(d, this.opts.families) : undefined;
  }

  distroMatches(): PyValue[] {
    const d = this.currentDistro();
    const f = this.currentFamily();
    return f ? [d, f] : [d];
  }

  // ---- tree ------------------------------------------------------------------------------------

  async list(nodes: readonly ValidatorNode[], reconcile: boolean, depth: number): Promise<void> {
    for (let i = 0; i < nodes.length; i += 1) {
      const node = nodes[i] as ValidatorNode;
      if (this.opts.mode === 'batched' && node.kind === 'copy_script' && !this.tarBroken) {
        let j = i;
        while (j < nodes.length && nodes[j]?.kind === 'copy_script') j += 1;
        if (j - i >= 2)
          await this.copyBatch(nodes.slice(i, j) as (ValidatorNode & { kind: 'copy_script' })[]);
      }
      await this.node(node, reconcile, depth);
    }
  }

  /** Writes several copy_script files with one `tar -x` (the nodes then report without another round trip). */
  async copyBatch(nodes: readonly (ValidatorNode & { kind: 'copy_script' })[]): Promise<void> {
    if (nodes.some((n) => this.preWritten.has(n))) return;
    const holder = { commands: [] as CommandRecord[] } as unknown as ValidatorResult;
    const outer = this.current;
    this.current = holder;
    try {
      const archive = tarArchive(nodes.map((n) => ({ path: n.target.replace(/^\/+/, ''), content: n.body })));
      const r = await this.exec(TAR_COMMAND, 'write', { input: archive });
      if (r.exitCode !== 0) {
        this.tarBroken = true;
        return;
      }
      for (const [i, n] of nodes.entries()) this.preWritten.set(n, i === 0 ? holder.commands : []);
    } finally {
      this.current = outer;
      // A failed attempt stays visible on the first validator, which then writes its file itself.
      if (this.tarBroken && nodes[0]) this.preWritten.set(nodes[0], holder.commands);
    }
  }

  async node(node: ValidatorNode, reconcile: boolean, depth: number): Promise<void> {
    const result: ValidatorResult = {
      type: node.type,
      kind: node.kind,
      label: labelOf(node),
      path: node.path,
      ...(node.file ? { file: node.file } : {}),
      ...(node.line ? { line: node.line, column: node.column } : {}),
      ...scriptPathOf(node),
      depth,
      mode: reconcile ? 'fix' : 'check',
      status: 'running',
      commands: [],
    };
    this.results.push(result);
    const outer = this.current;
    this.current = result;
    this.opts.onProgress?.({ type: 'start', result });
    try {
      const status = await this.body(node, reconcile, depth);
      result.status = status;
    } catch (caught) {
      // Our own errors raised mid-run (a script output with a NUL byte that a later script
      // must export) become a failure of this validator, so the report keeps what already ran.
      const e =
        caught instanceof Failure || caught instanceof Abort || !isStackspecError(caught)
          ? caught
          : this.failAt(
              node,
              caught.code,
              `The ${node.type} validator could not run: ${caught.message}`,
              caught.message,
            );
      result.status = 'failed';
      if (e instanceof Failure || e instanceof Abort) result.message = e.detail.message;
      else result.message = describeError(e);
      throw e;
    } finally {
      this.current = outer;
      this.opts.onProgress?.({ type: 'end', result });
    }
  }

  async body(node: ValidatorNode, reconcile: boolean, depth: number): Promise<ValidatorResult['status']> {
    switch (node.kind) {
      case 'package':
        return this.packages(node, reconcile);
      case 'script':
        await this.script(node, reconcile);
        return 'passed';
      case 'copy_script': {
        const done = this.preWritten.get(node);
        if (done) {
          this.preWritten.delete(node);
          this.current?.commands.push(...done);
          if (done.every((c) => c.exitCode === 0)) return 'passed';
        }
        await this.write(node.target, node.body);
        return 'passed';
      }
      case 'all':
        await this.list(node.validators, reconcile, depth + 1);
        return 'passed';
      case 'any':
        await this.any(node, reconcile, depth);
        return 'passed';
      case 'os_case': {
        const matches = this.distroMatches();
        const branch = node.cases.find((c) => matches.some((m) => pyEquals(c.key, m)));
        if (!branch) return 'skipped';
        await this.list(branch.validators, reconcile, depth + 1);
        return 'passed';
      }
      case 'argument_case': {
        if (!this.vars.has(node.argumentName)) {
          throw this.failAt(
            node,
            'image/argument-not-found',
            `The argument '${node.argumentName}' has no value here (it is neither declared nor set earlier).`,
            `Argument ${node.argumentName} not found.`,
          );
        }
        const value = this.vars.get(node.argumentName) as PyValue;
        const branch = node.cases.find((c: CaseBranch) => pyEquals(c.key, value));
        if (!branch) return 'skipped';
        await this.list(branch.validators, reconcile, depth + 1);
        return 'passed';
      }
      case 'argument_set':
        this.vars.set(node.argumentName, node.value);
        return 'passed';
      default:
        return this.custom(node, reconcile, depth);
    }
  }

  async any(node: ValidatorNode & { kind: 'any' }, reconcile: boolean, depth: number): Promise<void> {
    const pass = async (fix: boolean): Promise<Failure[] | undefined> => {
      const failures: Failure[] = [];
      for (const child of node.validators) {
        try {
          await this.node(child, fix, depth + 1);
          return undefined;
        } catch (e) {
          if (!(e instanceof Failure)) throw e;
          failures.push(e);
        }
      }
      return failures;
    };
    let failures = await pass(false);
    if (failures && reconcile) failures = await pass(true);
    if (!failures) return;
    const causes = failures.map((f) => f.detail);
    throw new Failure({
      code: 'image/all-failed',
      type: node.type,
      path: node.path,
      ...(node.file ? { file: node.file } : {}),
      ...(node.line ? { line: node.line, column: node.column } : {}),
      message: causes.length
        ? `None of the ${causes.length} branches of 'any' passed: ${causes.map((c) => c.message).join('; ')}`
        : `'any' has no branches, so it cannot pass.`,
      saharaMessage: `${VALIDATION_PREFIX}All validations have failed: ${causes.map((c) => c.saharaMessage).join(';')}`,
      causes,
    });
  }

  // ---- packages --------------------------------------------------------------------------------

  packageFamily(node: PackageNode): PackageFamily {
    const family = this.currentFamily();
    if (family !== 'debian' && family !== 'redhat') {
      throw this.failAt(
        node,
        'image/unknown-distro',
        `Packages cannot be checked on '${pyStr(this.currentDistro())}': its package family is not known.`,
        'Unknown distro: cannot verify or install packages.',
      );
    }
    return family;
  }

  async packages(node: PackageNode, reconcile: boolean): Promise<ValidatorResult['status']> {
    const family = this.packageFamily(node);
    const style = this.opts.mode;
    if (style === 'sahara') {
      const check = checkCommand(node.packages, family, 'sahara');
      const first = await this.exec(check, 'check');
      if (first.exitCode === 0) return 'passed';
      if (!reconcile) throw this.failCommand(node, check, first, 'A package is missing');
      const install = installCommand(node.packages, family, 'sahara');
      const inst = await this.exec(install, 'install');
      if (inst.exitCode !== 0) throw this.failCommand(node, install, inst, 'The package install failed');
      const again = await this.exec(check, 'check');
      if (again.exitCode !== 0)
        throw this.failCommand(node, check, again, 'A package is still missing after install');
      return 'fixed';
    }
    let missing = await this.cachedMissing(node, family);
    if (missing === undefined) {
      const check = checkCommand(node.packages, family, 'batched');
      const r = await this.exec(check, 'check');
      if (r.exitCode === 0) return 'passed';
      if (!reconcile) throw this.failCommand(node, check, r, 'A package is missing');
      missing = node.packages;
    } else if (!missing.length) {
      return 'passed';
    } else if (!reconcile) {
      // Confirm with the validator's own check so the failure shows the tool's words.
      const check = checkCommand(missing, family, 'batched');
      const r = await this.exec(check, 'check');
      if (r.exitCode === 0) {
        for (const p of missing) this.cache.set(packageWord(p, family, 'batched'), true);
        return 'passed';
      }
      throw this.failCommand(node, check, r, 'A package is missing');
    }
    const install = installCommand(missing, family, 'batched', this.opts.redhatInstaller);
    const inst = await this.exec(install, 'install');
    this.cache.clear();
    if (inst.exitCode !== 0) throw this.failCommand(node, install, inst, 'The package install failed');
    const check = checkCommand(node.packages, family, 'batched');
    const again = await this.exec(check, 'check');
    if (again.exitCode !== 0)
      throw this.failCommand(node, check, again, 'A package is still missing after install');
    for (const p of node.packages) this.cache.set(packageWord(p, family, 'batched'), true);
    return 'fixed';
  }

  /** Missing packages of `node` from the batch cache (filling it first), or `undefined` when batching is off. */
  async cachedMissing(node: PackageNode, family: PackageFamily): Promise<PackageRef[] | undefined> {
    if (this.batchBroken) return undefined;
    const word = (p: PackageRef) => packageWord(p, family, 'batched');
    if (node.packages.some((p) => !this.cache.has(word(p)))) {
      const wanted = new Map<string, PackageRef>();
      for (const p of node.packages) wanted.set(word(p), p);
      for (const p of this.reachablePackages()) if (!this.cache.has(word(p))) wanted.set(word(p), p);
      for (const w of this.cache.keys()) wanted.delete(w);
      const list = [...wanted.values()];
      this.opts.onProgress?.({ type: 'prefetch', packages: list.length });
      const command = batchCheckCommand(list, family);
      const r = await this.exec(command, 'prefetch');
      const missing = r.exitCode === 0 ? readBatchCheck(r.stdout, list.length) : undefined;
      if (!missing) {
        this.batchBroken = true;
        return undefined;
      }
      for (const [i, p] of list.entries()) this.cache.set(word(p), !missing.has(i));
    }
    return node.packages.filter((p) => this.cache.get(word(p)) === false);
  }

  /** Packages of every `package` validator the run can still reach with today's distro and variables. */
  reachablePackages(): PackageRef[] {
    const out: PackageRef[] = [];
    const matches = this.distroMatches();
    const walk = (nodes: readonly ValidatorNode[]) => {
      for (const n of nodes) {
        switch (n.kind) {
          case 'package':
            out.push(...n.packages);
            break;
          case 'all':
          case 'any':
            walk(n.validators);
            break;
          case 'os_case': {
            const b = n.cases.find((c) => matches.some((m) => pyEquals(c.key, m)));
            if (b) walk(b.validators);
            break;
          }
          case 'argument_case': {
            if (!this.vars.has(n.argumentName)) break;
            const v = this.vars.get(n.argumentName) as PyValue;
            const b = n.cases.find((c) => pyEquals(c.key, v));
            if (b) walk(b.validators);
            break;
          }
          case 'custom': {
            const kids = n.definition.children?.(n.config as never);
            if (kids) walk(kids);
            break;
          }
          default:
            break;
        }
      }
    };
    walk(this.spec.validators);
    return out;
  }

  // ---- scripts ---------------------------------------------------------------------------------

  scriptExports(node: ScriptNode, reconcile: boolean): [string, string][] {
    const names = new Set(['test_only', 'distro', ...node.envVars]);
    // A fresh key goes last; an existing one keeps its place (Python dicts behave the same).
    const copy = new Map(this.vars);
    copy.set('test_only', reconcile ? 0 : 1);
    const out: [string, string][] = [];
    for (const [k, v] of copy) if (names.has(k)) out.push([k, pyStr(v)]);
    // The spec's names for the same facts; SIV_RECONCILE has the opposite polarity of test_only.
    out.push(['SIV_DISTRO', pyStr(this.vars.get('distro') ?? this.distro)]);
    out.push(['SIV_RECONCILE', reconcile ? '1' : '0']);
    return out;
  }

  async script(node: ScriptNode, reconcile: boolean): Promise<void> {
    const exports = this.scriptExports(node, reconcile);
    let stdout: string;
    if (this.opts.mode === 'sahara') {
      const content = scriptFile(exports, node.body, false);
      const path = `${this.opts.tempDir.replace(/\/+$/, '')}/${this.opts.uuid()}.sh`;
      await this.write(path, content);
      const chmod = `chmod +x ${shellQuote(path)}`;
      const c = await this.exec(chmod, 'chmod');
      if (c.exitCode !== 0) throw this.failCommand(node, chmod, c, 'The script could not be made executable');
      // Sahara ran every root command as `bash -c "<command>"`, so bash read this file (its first
      // line is an export, not a `#!`). Our remotes use sh, which is dash on Debian; name bash.
      const run = `bash -c ${shellQuote(shellQuote(path))}`;
      const r = await this.exec(run, 'script');
      if (r.exitCode !== 0)
        throw this.failCommand(node, run, r, `The script '${node.name}' failed`, shellQuote(path));
      stdout = r.stdout;
    } else {
      const content = scriptFile(exports, node.body, true);
      const command = runScriptCommand(this.opts.tempDir);
      const r = await this.exec(command, 'script', { input: content });
      if (reconcile) this.cache.clear();
      if (r.exitCode !== 0) throw this.failCommand(node, command, r, `The script '${node.name}' failed`);
      stdout = r.stdout;
    }
    if (node.output) this.vars.set(node.output, stdout);
  }

  // ---- custom ----------------------------------------------------------------------------------

  async custom(
    node: ValidatorNode & { kind: 'custom' },
    reconcile: boolean,
    depth: number,
  ): Promise<ValidatorResult['status']> {
    const run = this;
    const ctx: ValidatorRunContext = {
      reconcile,
      get distro() {
        return pyStr(run.currentDistro());
      },
      get family() {
        return run.currentFamily();
      },
      variables: this.vars,
      exec: async (command, options) => {
        const r = await this.exec(command, 'custom', options);
        if (reconcile) this.cache.clear();
        return r;
      },
      run: async (command, options) => {
        const r = await ctx.exec(command, options);
        if (r.exitCode !== 0) throw this.failCommand(node, command, r, `The '${node.type}' validator failed`);
        return r;
      },
      writeFile: (path, content, options) => this.write(path, content, options),
      fail: (message) => {
        throw this.failAt(node, 'image/custom-failed', message, message);
      },
      validate: (validators, options) => this.list(validators, options?.reconcile ?? reconcile, depth + 1),
    };
    try {
      await node.definition.validate(node.config as never, ctx);
    } catch (e) {
      if (e instanceof Failure || e instanceof Abort) throw e;
      const message = `The '${node.type}' validator crashed: ${describeError(e)}`;
      throw new Abort({
        code: 'image/validator-crashed',
        type: node.type,
        path: node.path,
        ...(node.line ? { line: node.line } : {}),
        message,
        saharaMessage: message,
      });
    }
    return 'passed';
  }
}

function resolveArguments(
  spec: ImageSpec,
  given: Readonly<Record<string, string | number | boolean | null>>,
): { values: Map<string, PyValue> } | { failure: ValidationFailure } {
  const values = new Map<string, PyValue>();
  for (const arg of spec.arguments) {
    const loc = {
      path: arg.path,
      ...(arg.file ? { file: arg.file } : {}),
      ...(arg.line ? { line: arg.line, column: arg.column } : {}),
    };
    if (!Object.hasOwn(given, arg.name)) {
      if (arg.required) {
        const sahara = `Argument ${arg.name} is required for image processing.`;
        return {
          failure: {
            code: 'image/argument-required',
            ...loc,
            message: `${sahara} Pass it with --arg ${arg.name}=VALUE.`,
            saharaMessage: VALIDATION_PREFIX + sahara,
          },
        };
      }
      values.set(arg.name, arg.default ?? null);
      continue;
    }
    const value = toPyValue(given[arg.name]);
    if (typeof value === 'string' && value.includes('\u0000')) {
      return {
        failure: {
          code: 'image/argument-invalid',
          ...loc,
          message: `The value given for the argument ${arg.name} contains a NUL byte, which no script can receive.`,
          saharaMessage: `${VALIDATION_PREFIX}Argument ${arg.name} has an invalid value.`,
        },
      };
    }
    if (arg.choices?.length && !arg.choices.some((c) => pyEquals(c, value))) {
      const sahara = `Value for argument ${arg.name} must be one of ${pyStr(arg.choices)}.`;
      return {
        failure: {
          code: 'image/argument-choice',
          ...loc,
          message: sahara,
          saharaMessage: VALIDATION_PREFIX + sahara,
        },
      };
    }
    values.set(arg.name, value);
  }
  return { values };
}

function variablesOf(map: Map<string, PyValue>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of map) out[k] = pyStr(v);
  return out;
}

function scriptPathOf(node: ValidatorNode): { scriptPath?: string } {
  return (node.kind === 'script' || node.kind === 'copy_script') && node.scriptPath
    ? { scriptPath: node.scriptPath }
    : {};
}

function diagnosticOf(f: ValidationFailure): Diagnostic {
  return createDiagnostic({
    code: f.code,
    message: f.message,
    path: f.path ?? '',
    ...(f.file ? { file: f.file } : {}),
    ...(f.line ? { line: f.line } : {}),
    ...(f.column ? { column: f.column } : {}),
    ...(f.command
      ? {
          hint: `${f.scriptPath ? `Script: ${f.scriptPath}\n` : ''}Command: ${f.command}${f.stderr?.trim() ? `\nstderr: ${firstLine(f.stderr)}` : ''}`,
        }
      : {}),
  });
}

/**
 * Runs a loaded spec against a machine and reports what passed, what was
 * fixed and what failed. Never rejects for a failed validation: the report's
 * `ok` is false and `failure` says which validator failed, where it is in
 * the spec, the command and its output. Remote errors (a lost connection)
 * also end in a report, with a `image/remote/*` failure code, and so do values
 * that cannot reach a shell (a NUL byte in an argument, an env value or a
 * script output that a later script exports). It rejects only for options
 * that break {@link ValidateImageOptionsSchema}: a `ValidationError` with
 * `image/options/*` codes, before anything runs.
 *
 * With `reconcile: false` only checks run and scripts get `test_only=1`
 * (`SIV_RECONCILE=0`); nothing is installed.
 *
 * @example
 * const spec = loadImageSpec('image.yaml');
 * const report = await validateImage(spec, createLocalRemote(), { reconcile: false });
 * if (!report.ok) console.error(report.failure?.message);
 */
export async function validateImage(
  spec: ImageSpec,
  remote: Remote,
  rawOptions: ValidateImageOptions = {},
): Promise<ValidationReport> {
  requireObject(spec, 'The spec of validateImage', 'image/invalid-argument');
  if (!Array.isArray(spec.arguments) || !Array.isArray(spec.validators)) {
    throw new SpecError(
      'validateImage takes a spec made by loadImageSpec, with its arguments and validators lists.',
      {
        code: 'image/invalid-argument',
      },
    );
  }
  requireObject(remote, 'The remote of validateImage', 'image/invalid-argument');
  const options = parseWithSchema(ValidateImageOptionsSchema, rawOptions, { area: 'image/options' });
  const reconcile = options.reconcile ?? true;
  const mode = options.mode ?? 'batched';
  const run = new Run(spec, remote, {
    mode,
    families: {
      ...(mode === 'sahara' ? SAHARA_DISTRO_FAMILIES : DISTRO_FAMILIES),
      ...(options.families ?? {}),
    },
    redhatInstaller: options.redhatInstaller ?? 'auto',
    tempDir: options.tempDir ?? '/tmp',
    uuid: options.uuid ?? randomUUID,
    maxOutput: options.maxOutputChars ?? 65536,
    onProgress: options.onProgress,
  });
  const report = (failure?: ValidationFailure): ValidationReport => ({
    ok: !failure,
    reconcile,
    mode,
    ...(run.distro ? { distro: run.distro } : {}),
    ...(run.family ? { family: run.family } : {}),
    arguments: initial,
    variables: variablesOf(run.vars),
    results: run.results,
    ...(failure ? { failure } : {}),
    diagnostics: failure ? [diagnosticOf(failure)] : [],
    commandCount: run.commandCount,
  });
  let initial: Record<string, unknown> = {};
  const resolved = resolveArguments(spec, options.arguments ?? {});
  if ('failure' in resolved) return report(resolved.failure);
  for (const [k, v] of resolved.values) run.vars.set(k, v);
  const declared = new Set(spec.arguments.map((a) => a.name));
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (declared.has(name) || name === 'distro' || name === 'test_only') {
      const message = `The variable '${name}' in env clashes with ${declared.has(name) ? 'a declared argument' : 'a reserved name'}; pass arguments through 'arguments'.`;
      return report({ code: 'image/env-conflict', message, saharaMessage: message });
    }
    if (value.includes('\u0000')) {
      const message = `The env value of '${name}' contains a NUL byte, which no script can receive.`;
      return report({ code: 'image/env-invalid', message, saharaMessage: message });
    }
  }
  try {
    run.commandCount += 1;
    run.distro = (await remote.distro()).trim().toLowerCase();
  } catch (e) {
    return report(run.abort(e, 'distro').detail);
  }
  run.family = familyOf(run.distro, run.opts.families);
  run.vars.set('distro', run.distro);
  for (const [k, v] of Object.entries(options.env ?? {})) run.vars.set(k, v);
  initial = Object.fromEntries([...run.vars].map(([k, v]) => [k, fromPyValue(v)]));
  try {
    await run.list(spec.validators, reconcile, 0);
  } catch (e) {
    if (e instanceof Failure || e instanceof Abort) return report(e.detail);
    throw e;
  }
  return report();
}
