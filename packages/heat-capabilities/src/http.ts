import {
  heatErrorBody as coreHeatErrorBody,
  createServiceHandler,
  type Diagnostic,
  HttpError,
  isStackspecError,
  jsonResponse,
  NotFoundError,
  parseWithSchema,
  type ServiceCall,
  type ServiceFailure,
  type ServiceHandler,
  ValidationError,
} from '@stackspec/core';
import { z } from 'zod';
import { satisfiesFilter } from './capabilities.js';
import { type HeatEnvironment, validateEnvironment } from './environment.js';
import { summarizeCapabilities } from './find.js';
import { isMapping } from './load.js';
import { resolveEnvironment } from './resolve.js';
import { scanDocument } from './scan.js';
import { TEMPLATE_VERSIONS } from './versions.js';

/** Default largest request body: room for a whole template tree (Heat's own limit is 1 MiB per request). */
export const DEFAULT_HANDLER_MAX_BODY_BYTES = 32 * 1024 * 1024;

const FileContentSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);

/** The uploaded files, keyed by name (a path or a `file://` URL, as heatclient sends them). */
export const FilesSchema = z.record(z.string(), FileContentSchema);

/** Body of `POST /v1/{project}/capabilities/find`. */
export const FindRequestSchema = z.strictObject({
  files: FilesSchema,
  /** Required capabilities, `key: value`. */
  capabilities: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** Limit the search to these file names (default: every file). */
  templates: z.array(z.string()).optional(),
});
/** A parsed `capabilities/find` request. */
export type FindRequest = z.infer<typeof FindRequestSchema>;

/** Body of `POST /v1/{project}/capabilities/summary`. */
export const SummaryRequestSchema = z.strictObject({
  files: FilesSchema,
  templates: z.array(z.string()).optional(),
});
/** A parsed `capabilities/summary` request. */
export type SummaryRequest = z.infer<typeof SummaryRequestSchema>;

/** Body of `POST /v1/{project}/capabilities/resolve`, shaped like Heat's stack create. */
export const ResolveRequestSchema = z.strictObject({
  files: FilesSchema,
  /** Names of environment files in `files`, in merge order. */
  environment_files: z.array(z.string()).min(1),
  /** `server` (default) or `client` merge rules. */
  merge: z.enum(['server', 'client']).optional(),
});
/** A parsed `capabilities/resolve` request. */
export type ResolveRequest = z.infer<typeof ResolveRequestSchema>;

// Heat exception names for our codes, so clients that branch on error.type keep working.
const HEAT_TYPES: Record<string, string> = {
  'heat/template/too-large': 'RequestLimitExceeded',
  // Heat refuses a JSON body past max_json_body_size with this exception.
  'http/body-too-large': 'RequestLimitExceeded',
  'heat/template/unknown-version': 'InvalidTemplateVersion',
  'heat/template/ambiguous-version': 'InvalidTemplateVersion',
  'heat/template/version-not-string': 'InvalidTemplateVersion',
  'heat/template/invalid-section': 'InvalidTemplateSection',
  'heat/registry/invalid-hook': 'InvalidBreakPointHook',
  'heat/registry/invalid-restricted-action': 'InvalidRestrictedAction',
  'heat/merge/conflicting-strategy': 'ConflictingMergeStrategyForParam',
  'heat/merge/invalid-strategy': 'InvalidMergeStrategyForParam',
};

function heatType(code: string, status: number): string {
  if (HEAT_TYPES[code]) return HEAT_TYPES[code] as string;
  if (code.startsWith('heat/resolve/')) return 'CapabilitiesResolutionFailed';
  if (code.startsWith('heat/template/')) return 'StackValidationFailed';
  if (status === 404) return 'NotFound';
  if (status === 405) return 'HTTPMethodNotAllowed';
  return 'ValueError';
}

/**
 * Heat's error body (`code`, `title`, `explanation`, `error.type`,
 * `error.message`, `error.traceback`): the same function as core's, kept
 * here where it was first published.
 *
 * @deprecated Import `heatErrorBody` from `@stackspec/core`; this copy of the
 * export will be removed in a later minor release.
 */
export const heatErrorBody: typeof coreHeatErrorBody = coreHeatErrorBody;

function errorResponse(error: unknown): Response {
  if (isStackspecError(error)) {
    const status = error.status;
    const first = error.diagnostics.find((d) => d.severity === 'error') ?? error.diagnostics[0];
    const code = first?.code ?? error.code;
    return jsonResponse(
      coreHeatErrorBody(status, heatType(code, status), first?.message ?? error.message, error.diagnostics),
      {
        status,
      },
    );
  }
  return jsonResponse(
    coreHeatErrorBody(
      500,
      'InternalError',
      'An unexpected error prevented the server from fulfilling your request.',
    ),
    { status: 500 },
  );
}

function fileText(content: string | Record<string, unknown>): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** heatclient names uploaded files by `file://` URL; registry paths resolve to plain paths. */
function pathOf(name: string): string {
  return name.startsWith('file://') ? decodeURIComponent(name.slice('file://'.length)) : name;
}

function selectTemplates(files: FindRequest['files'], names: readonly string[] | undefined) {
  const out: { file: string; text: string }[] = [];
  for (const name of names ?? Object.keys(files).sort()) {
    const content = files[name];
    if (content === undefined) {
      throw new ValidationError(`The template '${name}' is not among the uploaded files.`, {
        code: 'heat/http/unknown-file',
      });
    }
    out.push({ file: name, text: fileText(content) });
  }
  return out;
}

function scanAll(files: readonly { file: string; text: string }[]) {
  const scanned = files.map(({ file, text }) => ({ file, ...scanDocument(text, { filename: file }) }));
  const diagnostics = scanned.flatMap((s) => s.diagnostics);
  return { templates: scanned.filter((s) => s.kind === 'template'), diagnostics };
}

/** Options of {@link createCapabilitiesHandler}. */
export interface CapabilitiesHandlerOptions {
  /** Largest accepted request body in bytes (default 32 MiB). */
  maxBodyBytes?: number | undefined;
}

/**
 * A fetch-style handler for the spec's server-side queries, with Heat's
 * URL layout and error bodies:
 *
 * - `GET /v1/{project}/template_versions`: Heat's version list (with aliases);
 * - `POST /v1/{project}/capabilities/find`: `{ files, capabilities?, templates? }` →
 *   `{ templates: [{ name, version, capabilities }] }`;
 * - `POST /v1/{project}/capabilities/summary`: `{ files, templates? }` →
 *   `{ labels, resource_types }`;
 * - `POST /v1/{project}/capabilities/resolve`: `{ files, environment_files, merge? }` →
 *   `{ choices, environment, candidates, warnings }`, or 400 naming every
 *   type that did not resolve.
 *
 * Files arrive as Heat's `files` map (text, or parsed JSON for templates);
 * names may be `file://` URLs as heatclient sends them. Bad bodies get 400,
 * bodies over the limit 413, unknown paths 404, wrong methods 405.
 *
 * @example
 * import { startServer } from '@stackspec/core/node';
 * await startServer(createCapabilitiesHandler(), { port: 8004 });
 */
export function createCapabilitiesHandler(
  options: CapabilitiesHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_HANDLER_MAX_BODY_BYTES;
  // Each query answers with its result as JSON; the body is read within the limit.
  const answer =
    (run: (call: ServiceCall) => Promise<unknown>): ServiceHandler =>
    async (call) =>
      jsonResponse(await run(call));
  const versions = async () => ({
    template_versions: TEMPLATE_VERSIONS.filter((v) => v.value === v.date).map((v) => ({
      version: `${v.key}.${v.value}`,
      type: v.format,
      aliases: TEMPLATE_VERSIONS.filter(
        (a) => a.key === v.key && a.date === v.date && a.value !== v.value,
      ).map((a) => `${a.key}.${a.value}`),
    })),
  });
  const find = async (call: ServiceCall) => {
    const body = parseWithSchema(FindRequestSchema, await call.json(), { area: 'heat/http' });
    const { templates, diagnostics } = scanAll(selectTemplates(body.files, body.templates));
    const filter: Record<string, string> = {};
    for (const [k, v] of Object.entries(body.capabilities ?? {})) filter[k] = String(v);
    return {
      templates: templates
        .filter((t) => satisfiesFilter(t.capabilities, filter))
        .map((t) => ({ name: t.file, version: t.version ?? null, capabilities: t.capabilities ?? {} })),
      ...(diagnostics.length ? { warnings: diagnostics } : {}),
    };
  };
  const summary = async (call: ServiceCall) => {
    const body = parseWithSchema(SummaryRequestSchema, await call.json(), { area: 'heat/http' });
    const { templates, diagnostics } = scanAll(selectTemplates(body.files, body.templates));
    const summarized = summarizeCapabilities(templates);
    return {
      labels: summarized.labels,
      resource_types: summarized.resourceTypes,
      ...(diagnostics.length ? { warnings: diagnostics } : {}),
    };
  };
  const resolve = async (call: ServiceCall) => {
    const body = parseWithSchema(ResolveRequestSchema, await call.json(), { area: 'heat/http' });
    const byPath = new Map<string, string>();
    const nameOf = new Map<string, string>();
    for (const [name, content] of Object.entries(body.files)) {
      byPath.set(pathOf(name), fileText(content));
      nameOf.set(pathOf(name), name);
    }
    const envs: HeatEnvironment[] = [];
    const problems: Diagnostic[] = [];
    for (const name of body.environment_files) {
      const text = body.files[name] ?? byPath.get(pathOf(name));
      if (text === undefined) {
        throw new ValidationError(`The environment file '${name}' is not among the uploaded files.`, {
          code: 'heat/http/unknown-file',
        });
      }
      const r = validateEnvironment(fileText(text), { filename: pathOf(name) });
      if (r.ok) envs.push(r.environment);
      else problems.push(...r.diagnostics);
    }
    if (problems.some((d) => d.severity === 'error'))
      throw new ValidationError(undefined, { diagnostics: problems });
    const result = await resolveEnvironment(envs, {
      strategy: body.merge ?? 'server',
      readTemplate: (path) => byPath.get(path),
    });
    if (!result.ok) throw new ValidationError(undefined, { diagnostics: result.diagnostics });
    // Answer with the names the client uploaded, so the environment matches its files map.
    const rename = (v: unknown): unknown => {
      if (typeof v === 'string') return nameOf.get(v) ?? v;
      if (isMapping(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rename(x)]));
      return v;
    };
    const environment = { ...result.environment };
    if (isMapping(environment.resource_registry))
      environment.resource_registry = rename(environment.resource_registry);
    return {
      choices: rename(result.choices),
      environment,
      candidates: result.candidates,
      ...(result.diagnostics.length ? { warnings: result.diagnostics } : {}),
    };
  };
  const renderError = (failure: ServiceFailure, call: ServiceCall): Response => {
    if (failure.reason === 'not-found') {
      return errorResponse(
        new NotFoundError('The resource could not be found.', { code: 'heat/http/not-found' }),
      );
    }
    if (failure.reason === 'method-not-allowed') {
      const allow = failure.allow.join(', ');
      const response = errorResponse(
        new HttpError(405, `The method ${call.method} is not allowed for this resource; use ${allow}.`, {
          code: 'heat/http/method-not-allowed',
        }),
      );
      response.headers.set('allow', allow);
      return response;
    }
    return errorResponse(failure.reason === 'error' ? failure.error : undefined);
  };
  return createServiceHandler({
    routes: [
      { path: '/v1/{project}/template_versions', methods: { GET: answer(versions) } },
      { path: '/v1/{project}/capabilities/find', methods: { POST: answer(find) } },
      { path: '/v1/{project}/capabilities/summary', methods: { POST: answer(summary) } },
      { path: '/v1/{project}/capabilities/resolve', methods: { POST: answer(resolve) } },
    ],
    pipeline: ['route', 'method'],
    // Heat's router takes a path with one trailing slash as the path without.
    routePath: (url) => url.pathname.replace(/\/$/, ''),
    maxBodyBytes,
    renderError,
  });
}
