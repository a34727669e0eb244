import { createDiagnostic, type Diagnostic, type DiagnosticInit, describeError } from '@stackspec/core';
import { type Capabilities, matchRequirements, type RequirementsMatch } from './capabilities.js';
import { type HeatEnvironment, isTemplateName, pointerSegment, type RegistryEntry } from './environment.js';
import { isMapping } from './load.js';
import { type MergeEnvironmentsOptions, mergeEnvironments } from './merge.js';
import { isUrl, relativeTo } from './paths.js';
import { effectiveEntries } from './registry.js';
import { type ParseTemplateOptions, validateTemplate } from './template.js';

/** Reads a template by the path the registry resolved to; `undefined` or a throw means it cannot be read. */
export type ReadTemplate = (path: string) => string | undefined | Promise<string | undefined>;

/** Options of {@link resolveEnvironment}. */
export interface ResolveEnvironmentOptions extends MergeEnvironmentsOptions {
  /** How candidate templates are read (a file system, a map of uploaded files, an HTTP fetch…). */
  readTemplate: ReadTemplate;
  /** Tree root: chosen paths and candidates are reported relative to it. */
  root?: string | undefined;
  /**
   * Directory the output environment will live in: its template paths are
   * written relative to it. Default: `root`, or the resolved paths as they
   * are when there is no root.
   */
  outputDir?: string | undefined;
  /** Options for parsing candidate templates (size limit…). */
  templateOptions?: Omit<ParseTemplateOptions, 'filename'> | undefined;
}

/** What happened to one candidate of a list entry. */
export interface CandidateVerdict {
  /** As written in the environment. */
  value: string;
  /** Path reported to the user (relative to `root` when given), or the type name. */
  path: string;
  status: 'match' | 'ruled-out' | 'missing' | 'invalid';
  /** For `ruled-out`: the first requirement it fails. */
  reason?: Exclude<RequirementsMatch, { ok: true }>;
  /** The candidate's capabilities, when it is a template that could be read. */
  capabilities?: Capabilities | undefined;
  /** For `missing`/`invalid`: what went wrong. */
  problem?: string;
}

/** Outcome of {@link resolveEnvironment}. */
export interface ResolveEnvironmentResult {
  /** True when every list entry resolved to exactly one candidate and the merge succeeded. */
  ok: boolean;
  /** For each resolved type, the chosen path (relative to `root`) or type name. */
  choices: Record<string, string>;
  /**
   * A plain environment real Heat accepts: no `requires`, no lists, one
   * merged registry with paths relative to `outputDir`. Types that failed
   * to resolve are left out.
   */
  environment: Record<string, unknown>;
  /** Errors (sorted by type name) and warnings. */
  diagnostics: Diagnostic[];
  /** For each list entry, every candidate's verdict, sorted by type name. */
  candidates: Record<string, CandidateVerdict[]>;
}

function describeReason(reason: Exclude<RequirementsMatch, { ok: true }>): string {
  switch (reason.reason) {
    case 'undeclared':
      return `declares no capabilities (requires ${reason.key}: ${reason.required})`;
    case 'missing':
      return `has no '${reason.key}' capability (requires ${reason.required})`;
    default:
      return `offers ${reason.key}: ${reason.offered.join(', ')} (requires ${reason.required})`;
  }
}

function distinguishingKey(verdicts: readonly CandidateVerdict[]): string | undefined {
  const keys = new Set<string>();
  for (const v of verdicts) for (const k of Object.keys(v.capabilities ?? {})) keys.add(k);
  for (const key of keys) {
    const values = verdicts.map((v) => (v.capabilities?.[key] ?? []).join(','));
    if (new Set(values).size === values.length) return key;
  }
  return undefined;
}

interface Loaded {
  status: 'ok' | 'missing' | 'invalid';
  capabilities?: Capabilities | undefined;
  problem?: string;
}

/**
 * Resolves the candidate lists of a set of environment files: merges them
 * (server-side rules unless `strategy: 'client'`), then for each
 * `resource_registry` entry that is a list, reads every candidate and keeps
 * the one whose capabilities satisfy the merged `requires` (extra
 * capabilities are fine). Zero or several matches, and any candidate that
 * is missing or not a valid template (even when another one matches), are
 * errors naming the type, each candidate and the first requirement that
 * ruled it out. The returned environment is plain Heat: lists replaced by
 * the chosen template, `requires` removed.
 *
 * Codes: `heat/resolve/no-match`, `heat/resolve/several-match`,
 * `heat/resolve/candidate-missing`, `heat/resolve/candidate-invalid`, and the
 * `heat/merge/*` codes of {@link mergeEnvironments}.
 *
 * @example
 * const r = await resolveEnvironment([parseEnvironment(text, { filename: 'env.yaml' })], {
 *   readTemplate: (p) => readFile(p, 'utf8'),
 * });
 * r.choices; // { 'OS::TripleO::Controller': 'puppet/controller.yaml' }
 */
export async function resolveEnvironment(
  envs: readonly HeatEnvironment[],
  options: ResolveEnvironmentOptions,
): Promise<ResolveEnvironmentResult> {
  const merged = mergeEnvironments(envs, options);
  const diagnostics: Diagnostic[] = [...merged.diagnostics];
  const requires = merged.environment.requires;
  const root = options.root;
  const outputDir = options.outputDir ?? root;
  const show = (path: string) => (root !== undefined ? relativeTo(path, root) : path);
  const cache = new Map<string, Promise<Loaded>>();
  const load = (path: string): Promise<Loaded> => {
    let hit = cache.get(path);
    if (!hit) {
      hit = (async (): Promise<Loaded> => {
        let text: string | undefined;
        try {
          text = await options.readTemplate(path);
        } catch (e) {
          return { status: 'missing', problem: describeError(e) };
        }
        if (text === undefined) return { status: 'missing', problem: 'the file does not exist' };
        const parsed = validateTemplate(text, { ...options.templateOptions, filename: show(path) });
        if (!parsed.ok) {
          const first = parsed.diagnostics.find((d) => d.severity === 'error');
          const where = first?.line ? `line ${first.line}: ` : '';
          return { status: 'invalid', problem: `${where}${first?.message ?? 'not a valid template'}` };
        }
        return { status: 'ok', capabilities: parsed.template.capabilities };
      })();
      cache.set(path, hit);
    }
    return hit;
  };

  // A null wildcard loaded after a list removes it, as it would in Heat.
  const lists = (effectiveEntries(merged.environment.registry) as (RegistryEntry & { origin: number })[])
    .filter(
      (e): e is RegistryEntry & { origin: number; candidates: NonNullable<RegistryEntry['candidates']> } =>
        Boolean(e.kind === 'candidates' && e.candidates),
    )
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  const choices: Record<string, string> = {};
  const chosenPath: Record<string, string> = {};
  const candidates: Record<string, CandidateVerdict[]> = {};
  const failures: Diagnostic[] = [];

  for (const entry of lists) {
    const env = merged.environment.environments[entry.origin] as HeatEnvironment;
    const pointer = `/resource_registry/${pointerSegment(entry.type)}`;
    // Problems with a type point at its key; problems with one candidate at the candidate.
    const at = (init: DiagnosticInit): Diagnostic =>
      env.document
        ? env.document.diagnostic(init, { key: init.path === pointer })
        : createDiagnostic({ ...init, ...(env.file ? { file: env.file } : {}) });
    const verdicts: CandidateVerdict[] = [];
    for (const [i, c] of entry.candidates.entries()) {
      if (c.kind === 'type') {
        const match = matchRequirements(undefined, requires);
        verdicts.push(
          match.ok
            ? { value: c.value, path: c.value, status: 'match' }
            : { value: c.value, path: c.value, status: 'ruled-out', reason: match },
        );
        continue;
      }
      const resolved = c.resolved ?? c.value;
      const loaded = await load(resolved);
      const path = show(resolved);
      if (loaded.status !== 'ok') {
        verdicts.push({ value: c.value, path, status: loaded.status, problem: loaded.problem as string });
        failures.push(
          at({
            code:
              loaded.status === 'missing'
                ? 'heat/resolve/candidate-missing'
                : 'heat/resolve/candidate-invalid',
            message:
              loaded.status === 'missing'
                ? `Candidate ${path} of ${entry.type} cannot be read: ${loaded.problem}.`
                : `Candidate ${path} of ${entry.type} is not a valid template: ${loaded.problem}`,
            path: `${pointer}/${i}`,
            hint:
              loaded.status === 'missing'
                ? `Paths resolve against the directory of ${env.file ?? 'the environment file'}.`
                : `Run "stackspec-heat validate ${path}" to see every problem.`,
          }),
        );
        continue;
      }
      const match = matchRequirements(loaded.capabilities, requires);
      verdicts.push(
        match.ok
          ? { value: c.value, path, status: 'match', capabilities: loaded.capabilities }
          : { value: c.value, path, status: 'ruled-out', reason: match, capabilities: loaded.capabilities },
      );
    }
    candidates[entry.type] = verdicts;
    const matches = verdicts.filter((v) => v.status === 'match');
    const broken = verdicts.some((v) => v.status === 'missing' || v.status === 'invalid');
    const describeAll = verdicts
      .map((v) =>
        v.status === 'match'
          ? `${v.path} (satisfies requires)`
          : v.status === 'ruled-out' && v.reason
            ? `${v.path} ${v.path === v.value && !isTemplateName(v.value) ? 'is a type name and ' : ''}${describeReason(v.reason)}`
            : `${v.path} (${v.status === 'missing' ? 'cannot be read' : 'is not a valid template'})`,
      )
      .join('; ');
    if (matches.length === 0) {
      const reqText = Object.entries(requires)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ');
      failures.push(
        at({
          code: 'heat/resolve/no-match',
          message: `No candidate for ${entry.type} satisfies requires${reqText ? ` (${reqText})` : ''}: ${describeAll}.`,
          path: pointer,
          hint: Object.keys(requires).length
            ? 'Annotate the intended template with matching capabilities, or change requires.'
            : 'Add a requires section naming the capabilities to choose by.',
        }),
      );
    } else if (matches.length > 1) {
      const key = distinguishingKey(matches);
      failures.push(
        at({
          code: 'heat/resolve/several-match',
          message: `${matches.length} candidates for ${entry.type} satisfy requires, exactly one must: ${describeAll}.`,
          path: pointer,
          hint: key
            ? `Add a requirement on '${key}' to pick one (${matches.map((m) => `${m.path}: ${(m.capabilities?.[key] ?? []).join(', ')}`).join('; ')}).`
            : 'Give the candidates capabilities that tell them apart and require one of them.',
        }),
      );
    } else if (!broken) {
      const only = matches[0] as CandidateVerdict;
      const c = entry.candidates.find((x) => x.value === only.value);
      choices[entry.type] = only.path;
      chosenPath[entry.type] = c?.resolved ?? c?.value ?? only.value;
    }
  }
  diagnostics.push(...failures);

  const environment = plainEnvironment(
    merged.environment.value,
    chosenPath,
    new Set(lists.map((l) => l.type)),
    outputDir,
  );
  return {
    ok: !diagnostics.some((d) => d.severity === 'error'),
    choices,
    environment,
    diagnostics,
    candidates,
  };
}

function rebase(value: unknown, outputDir: string | undefined): unknown {
  if (typeof value !== 'string' || !isTemplateName(value) || isUrl(value)) return value;
  return outputDir === undefined ? value : relativeTo(value, outputDir);
}

function rebaseRegistry(registry: Record<string, unknown>, outputDir: string | undefined, top: boolean) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(registry)) {
    if (isMapping(value)) out[key] = rebaseRegistry(value, outputDir, false);
    else if (key === 'hooks' || key === 'restricted_actions' || isTemplateName(key)) out[key] = value;
    else out[key] = top || typeof value === 'string' ? rebase(value, outputDir) : value;
  }
  return out;
}

function plainEnvironment(
  merged: Record<string, unknown>,
  chosen: Record<string, string>,
  listTypes: ReadonlySet<string>,
  outputDir: string | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [section, value] of Object.entries(merged)) {
    if (section === 'requires') continue;
    if (section !== 'resource_registry' || !isMapping(value)) {
      out[section] = value;
      continue;
    }
    const registry: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      // Heat cannot load a list at all, so none may remain, resolved or not.
      if (Array.isArray(v)) {
        if (listTypes.has(key) && key in chosen) registry[key] = chosen[key];
        continue;
      }
      registry[key] = v;
    }
    out[section] = rebaseRegistry(registry, outputDir, true);
  }
  return out;
}
