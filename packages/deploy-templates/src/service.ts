import {
  isUuidLike,
  NotFoundError,
  pyInt,
  pyJsonDumps,
  pyRepr,
  pyStr,
  pyStrip,
  SpecError,
  ValidationError,
} from '@stackspec/core';
import { parsePatchDocument, parsePatchedStep, parseTemplateBody } from './ironic-rules.js';
import { applyPatchOperation, JsonPatchFailure, type JsonPatchOperation } from './json-patch.js';
import { maskSecrets } from './masking.js';
import type { DeployTemplateRule } from './policy.js';
import { type IronicProfile, ironicProfile } from './profile.js';
import type { DeployStep } from './schema.js';
import type { DeployTemplateStore, SortKey, StoredTemplate, TemplateChanges } from './store/types.js';
import { SORT_KEYS } from './store/types.js';

/** Query parameters as parsed from a URL: repeated names give arrays. */
export type QueryParams = Readonly<Record<string, string | readonly string[]>>;

/** Per-call information the service needs from the transport. */
export interface CallContext {
  /** Public root URL for links, without a trailing slash (`http://host:6385`). */
  baseUrl: string;
  /** Checks a policy rule at the point Ironic checks it; throws to deny. */
  authorize?: (rule: DeployTemplateRule) => void | Promise<void>;
  /** The request path ended in `.json`, which was stripped (API ≤ 1.90): also try the identifier with it. */
  jsonSuffix?: boolean;
}

/** A versioned notification, shaped like Ironic's `DeployTemplateCRUDNotification`. */
export interface TemplateNotification {
  event_type: string;
  priority: 'info' | 'error';
  payload: {
    created_at: string | null;
    extra: Record<string, unknown>;
    name: string;
    steps: DeployStep[];
    updated_at: string | null;
    uuid: string;
  };
}

/** Options for {@link createDeployTemplateService}. */
export interface DeployTemplateServiceOptions {
  /** Release whose rules apply (default newest). */
  profile?: IronicProfile;
  /** Largest page size (Ironic's `[api]max_limit`, default 1000). */
  maxLimit?: number;
  /** UUID generator for templates created without one. */
  newUuid?: () => string;
  /** Receives start/end/error notifications around each write. */
  notify?: (notification: TemplateNotification) => void;
  /**
   * Largest list answer, in bytes of JSON (default
   * {@link DEFAULT_MAX_LIST_BYTES}). A page that would grow past it ends
   * early with a `next` link, as a page cut at the limit does; a page holds
   * at least one template, whatever its size.
   */
  maxListBytes?: number;
}

/**
 * Default largest list answer: 4 MiB of JSON, some 36 templates of the
 * largest body the API accepts, and a thousand ordinary ones.
 */
export const DEFAULT_MAX_LIST_BYTES = 4 * 1024 * 1024;

// Rows are read from the store in batches of about this many bytes, so a
// list never holds more than a batch of rows beside the page it builds.
const LIST_BATCH_BYTES = 1024 * 1024;
const LIST_FIRST_BATCH = 10;
const LIST_MAX_BATCH = 200;

/** The fields a template exposes; `links` is always added. */
export const TEMPLATE_FIELDS = [
  'uuid',
  'created_at',
  'updated_at',
  'name',
  'extra',
  'links',
  'steps',
] as const;

const LIST_PARAMS = ['marker', 'limit', 'sort_key', 'sort_dir', 'fields', 'detail'];
const TRUE_WORDS = ['1', 't', 'true', 'on', 'y', 'yes'];
const FALSE_WORDS = ['0', 'f', 'false', 'off', 'n', 'no'];
const LOGICAL_NAME = /^[A-Za-z0-9\-._~]+$/;
const PATCHABLE = ['extra', 'name', 'steps', 'description'];

/** Ironic's deploy template API as plain functions: inputs as received, outputs as response bodies. */
export interface DeployTemplateService {
  /** `GET /v1/deploy_templates`: `{deploy_templates, next?}`. */
  list(query: QueryParams, ctx: CallContext): Promise<Record<string, unknown>>;
  /** `GET /v1/deploy_templates/{ident}`. */
  show(ident: string | undefined, query: QueryParams, ctx: CallContext): Promise<Record<string, unknown>>;
  /** `POST /v1/deploy_templates`: the new template and its `Location`. */
  create(
    body: unknown,
    query: QueryParams,
    ctx: CallContext,
  ): Promise<{ body: Record<string, unknown>; location: string }>;
  /** `PATCH /v1/deploy_templates/{ident}` with an RFC 6902 document. */
  update(
    ident: string | undefined,
    patch: unknown,
    query: QueryParams,
    ctx: CallContext,
  ): Promise<Record<string, unknown>>;
  /** `DELETE /v1/deploy_templates/{ident}`. */
  delete(ident: string | undefined, query: QueryParams, ctx: CallContext): Promise<void>;
  /** Finds a template by uuid or name (no policy, no masking), for embedding. */
  find(ident: string): Promise<StoredTemplate | undefined>;
  /** The store behind the service. */
  readonly store: DeployTemplateStore;
}

function bad(message: string, code = 'invalid-parameter'): ValidationError {
  return new ValidationError(message, { code: `deploy-templates/${code}` });
}

function notFound(ident: string): NotFoundError {
  return new NotFoundError(`Deploy template ${ident} could not be found.`, {
    code: 'deploy-templates/not-found',
  });
}

function checkUnexpected(query: QueryParams, allowed: readonly string[]): void {
  const extra = Object.keys(query).filter((k) => !allowed.includes(k));
  if (extra.length) throw bad(`Unexpected arguments: ${extra.join(', ')}`);
}

function asString(name: string, value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw bad(`Expected string for ${name}: ${pyRepr(value)}`);
  return value;
}

function parseFields(value: string | readonly string[] | undefined): string[] | undefined {
  const text = asString('fields', value);
  if (text === undefined) return undefined;
  const out: string[] = [];
  for (const part of text.split(',')) {
    const v = part.trim().toLowerCase();
    if (v && !out.includes(v)) out.push(v);
  }
  return out;
}

function parseBool(name: string, value: string | readonly string[] | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const text = pyStr(value);
  const lowered = pyStrip(text).toLowerCase();
  if (TRUE_WORDS.includes(lowered)) return true;
  if (FALSE_WORDS.includes(lowered)) return false;
  const acceptable = [...TRUE_WORDS, ...FALSE_WORDS]
    .sort()
    .map((w) => `'${w}'`)
    .join(', ');
  throw bad(`Invalid ${name}: Unrecognized value '${text}', acceptable values are: ${acceptable}`);
}

function parseInteger(name: string, value: string | readonly string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  // Python's int() on the raw text, as Ironic reads it.
  const n = typeof value === 'string' ? pyInt(value) : undefined;
  if (!n?.ok) throw bad(`Expected an integer for ${name}: ${pyStr(value)}`);
  return Number(n.value);
}

function isLogicalName(value: string): boolean {
  return value.length <= 255 && LOGICAL_NAME.test(value);
}

function checkIdent(ident: string | undefined): string {
  if (ident === undefined) throw bad('Missing mandatory parameter: template_ident', 'missing-parameter');
  if (!isLogicalName(ident) && !isUuidLike(ident))
    throw bad(`Expected UUID or name for template_ident: ${ident}`);
  return ident;
}

function toBody(t: StoredTemplate, baseUrl: string, fields?: readonly string[]): Record<string, unknown> {
  const full: Record<string, unknown> = {
    uuid: t.uuid,
    created_at: t.created_at,
    updated_at: t.updated_at,
    name: t.name,
    extra: t.extra,
    links: [
      { href: `${baseUrl}/v1/deploy_templates/${t.uuid}`, rel: 'self' },
      { href: `${baseUrl}/deploy_templates/${t.uuid}`, rel: 'bookmark' },
    ],
    steps: t.steps.map((s) => ({
      interface: s.interface,
      step: s.step,
      args: Object.keys(s.args).length ? maskSecrets(s.args) : s.args,
      priority: s.priority,
    })),
  };
  if (fields) {
    const invalid = fields.filter((f) => !Object.hasOwn(full, f));
    if (invalid.length) throw bad(`Field(s) "${invalid.join(', ')}" are not valid`);
    for (const key of Object.keys(full)) if (key !== 'links' && !fields.includes(key)) delete full[key];
  }
  return full;
}

/**
 * Ironic's deploy template controller on top of a store: the same checks in
 * the same order, the same messages and statuses (core errors carrying
 * them), list pagination with `next` links, JSON Patch updates that change
 * nothing when they fail, and secrets masked in step args.
 *
 * @example
 * const service = createDeployTemplateService(createPgliteStore());
 * await service.create({ name: 'CUSTOM_RAID1', steps }, {}, { baseUrl: 'http://localhost:6385' });
 */
export function createDeployTemplateService(
  store: DeployTemplateStore,
  options: DeployTemplateServiceOptions = {},
): DeployTemplateService {
  const profile = options.profile ?? ironicProfile();
  const maxLimit = options.maxLimit ?? 1000;
  const maxListBytes = options.maxListBytes ?? DEFAULT_MAX_LIST_BYTES;
  if (typeof maxListBytes !== 'number' || !(maxListBytes > 0)) {
    throw new SpecError(`maxListBytes must be a number of bytes above 0, not ${String(maxListBytes)}.`, {
      code: 'deploy-templates/bad-option',
    });
  }
  const newUuid = options.newUuid ?? (() => crypto.randomUUID());
  const authorize = async (ctx: CallContext, rule: DeployTemplateRule) => {
    await ctx.authorize?.(rule);
  };

  const emit = (
    action: string,
    phase: 'start' | 'end' | 'error',
    t: Partial<StoredTemplate> & { uuid: string },
  ) => {
    options.notify?.({
      event_type: `baremetal.deploytemplate.${action}.${phase}`,
      priority: phase === 'error' ? 'error' : 'info',
      payload: {
        created_at: t.created_at ?? null,
        extra: t.extra ?? {},
        name: t.name ?? '',
        steps: t.steps ?? [],
        updated_at: t.updated_at ?? null,
        uuid: t.uuid,
      },
    });
  };

  async function withNotifications<T>(
    action: string,
    subject: Partial<StoredTemplate> & { uuid: string },
    fn: () => Promise<T>,
  ): Promise<T> {
    emit(action, 'start', subject);
    try {
      const out = await fn();
      emit(action, 'end', (out as StoredTemplate | undefined)?.uuid ? (out as StoredTemplate) : subject);
      return out;
    } catch (e) {
      emit(action, 'error', subject);
      throw e;
    }
  }

  async function lookup(ident: string, ctx: CallContext): Promise<StoredTemplate> {
    const get = (id: string) => (isUuidLike(id) ? store.getByUuid(id) : store.getByName(id));
    const found = await get(ident);
    if (found) return found;
    if (!ctx.jsonSuffix) throw notFound(ident);
    // Ironic retries with the suffix put back, and reports that name when it fails too.
    const suffixed = await get(`${ident}.json`);
    if (!suffixed) throw notFound(`${ident}.json`);
    return suffixed;
  }

  return {
    store,

    find(ident) {
      return isUuidLike(ident) ? store.getByUuid(ident) : store.getByName(ident);
    },

    async list(query, ctx) {
      checkUnexpected(query, LIST_PARAMS);
      const marker = query.marker;
      if (marker !== undefined && (typeof marker !== 'string' || !isLogicalName(marker))) {
        throw bad(`Expected name for marker: ${pyStr(marker)}`);
      }
      const limitArg = parseInteger('limit', query.limit);
      const sortKey = asString('sort_key', query.sort_key) ?? 'id';
      const sortDir = asString('sort_dir', query.sort_dir) ?? 'asc';
      const requestedFields = parseFields(query.fields);
      const detail = parseBool('detail', query.detail);
      await authorize(ctx, 'baremetal:deploy_template:get');
      if (requestedFields !== undefined && detail) {
        throw bad('Can not specify ?detail=True and fields in the same request.');
      }
      const fields = requestedFields === undefined && !detail ? ['uuid', 'name'] : requestedFields;
      if (limitArg !== undefined && limitArg <= 0) throw bad('Limit must be positive');
      const limit = limitArg === undefined ? maxLimit : Math.min(maxLimit, limitArg);
      if (sortDir !== 'asc' && sortDir !== 'desc') {
        throw bad(`Invalid sort direction: ${sortDir}. Acceptable values are 'asc' or 'desc'`);
      }
      if (sortKey === 'extra' || sortKey === 'steps') {
        throw bad(`The sort_key value ${sortKey} is an invalid field for sorting`);
      }
      let markerTemplate: StoredTemplate | undefined;
      if (marker) {
        markerTemplate = await store.getByUuid(marker as string);
        if (!markerTemplate) throw notFound(marker as string);
      }
      const effectiveKey = sortKey === '' ? 'id' : sortKey;
      if (!SORT_KEYS.includes(effectiveKey as SortKey)) {
        throw bad(`The sort_key value "${sortKey}" is an invalid field for sorting`);
      }
      // Read the page in batches and stop once it would pass maxListBytes: a list of
      // large templates then costs a batch and a page of memory, not the whole table.
      const items: Record<string, unknown>[] = [];
      let size = 0;
      let last: StoredTemplate | undefined;
      let cut = false;
      let cursor = markerTemplate;
      let batch = LIST_FIRST_BATCH;
      while (items.length < limit && !cut) {
        const want = Math.min(batch, limit - items.length);
        const rows = await store.list({
          limit: want,
          sortKey: effectiveKey as SortKey,
          sortDir,
          ...(cursor ? { marker: cursor } : {}),
        });
        let batchBytes = 0;
        for (const row of rows) {
          const item = toBody(row, ctx.baseUrl, fields);
          const itemBytes = pyJsonDumps(item).length + 2;
          if (items.length > 0 && size + itemBytes > maxListBytes) {
            cut = true;
            break;
          }
          items.push(item);
          size += itemBytes;
          batchBytes += itemBytes;
          last = row;
        }
        if (cut || rows.length < want) break;
        cursor = rows[rows.length - 1];
        const average = batchBytes / Math.max(rows.length, 1);
        batch = Math.max(1, Math.min(LIST_MAX_BATCH, Math.floor(LIST_BATCH_BYTES / Math.max(average, 1))));
      }
      const body: Record<string, unknown> = { deploy_templates: items };
      if (last && (items.length === limit || cut)) {
        const args = [`sort_key=${sortKey}`, `sort_dir=${sortDir}`];
        if (detail !== undefined) args.push(`detail=${detail ? 'True' : 'False'}`);
        if (fields?.length) args.push(`fields=${fields.join(',')}`);
        body.next = `${ctx.baseUrl}/v1/deploy_templates?${args.join('&')}&limit=${limit}&marker=${last.uuid}`;
      }
      return body;
    },

    async show(ident, query, ctx) {
      const id = checkIdent(ident);
      checkUnexpected(query, ['fields']);
      const fields = parseFields(query.fields);
      await authorize(ctx, 'baremetal:deploy_template:get');
      return toBody(await lookup(id, ctx), ctx.baseUrl, fields);
    },

    async create(body, query, ctx) {
      checkUnexpected(query, []);
      const template = parseTemplateBody(body ?? {}, profile, 'template');
      await authorize(ctx, 'baremetal:deploy_template:create');
      const uuid = template.uuid || newUuid();
      const draft = { uuid, name: template.name, steps: template.steps, extra: template.extra ?? {} };
      const created = await withNotifications('create', draft, () => store.create(draft));
      return {
        body: toBody(created, ctx.baseUrl),
        location: `${ctx.baseUrl}/v1/deploy_templates/${created.uuid}`,
      };
    },

    async update(ident, patch, query, ctx) {
      const id = checkIdent(ident);
      checkUnexpected(query, []);
      const ops = parsePatchDocument(patch);
      await authorize(ctx, 'baremetal:deploy_template:update');
      for (const op of ops) {
        const root = op.path.split('/')[1] ?? '';
        if (!PATCHABLE.includes(root)) {
          throw bad(`Cannot patch ${op.path}. Only the following can be updated: ${PATCHABLE.join(', ')}`);
        }
      }
      const found = await lookup(id, ctx);
      const changesFor = (current: StoredTemplate): TemplateChanges => {
        let doc: Record<string, unknown> = {
          id: current.id,
          uuid: current.uuid,
          name: current.name,
          steps: structuredClone(current.steps),
          extra: structuredClone(current.extra),
          created_at: current.created_at,
          updated_at: current.updated_at,
          version: current.version,
        };
        for (const op of ops) {
          if (op.op === 'add' && op.path.split('/').length === 2 && !Object.hasOwn(doc, op.path.slice(1))) {
            throw bad(`Adding a new attribute (${op.path}) to the root of the resource is not allowed`);
          }
        }
        for (const op of ops) {
          try {
            doc = applyPatchOperation(doc, op as JsonPatchOperation);
          } catch (e) {
            if (e instanceof JsonPatchFailure) {
              throw bad(`Couldn't apply patch '${pyRepr(op)}'. Reason: ${e.reason}`, 'patch-failed');
            }
            throw e;
          }
        }
        if (Array.isArray(doc.steps)) {
          doc.steps = doc.steps.map((s: unknown) => {
            if (typeof s !== 'object' || s === null || Array.isArray(s)) {
              parsePatchedStep(s, profile);
              return s;
            }
            const kept = Object.fromEntries(
              Object.entries(s as Record<string, unknown>).filter(([k]) =>
                ['args', 'interface', 'priority', 'step'].includes(k),
              ),
            );
            parsePatchedStep(kept, profile);
            return kept;
          });
        }
        const candidate = Object.fromEntries(
          Object.entries(doc).filter(([k]) => ['description', 'extra', 'name', 'steps', 'uuid'].includes(k)),
        );
        const checked = parseTemplateBody(candidate, profile, 'patch');
        // Like Ironic, announce the update only once it is valid and about to be saved.
        started = true;
        emit('update', 'start', current);
        return { name: checked.name, steps: checked.steps, extra: checked.extra ?? {} };
      };
      let started = false;
      try {
        const updated = await store.modify(found.uuid, changesFor);
        if (!updated) throw notFound(id);
        emit('update', 'end', updated);
        return toBody(updated, ctx.baseUrl);
      } catch (e) {
        if (started) emit('update', 'error', found);
        throw e;
      }
    },

    async delete(ident, query, ctx) {
      const id = checkIdent(ident);
      checkUnexpected(query, []);
      await authorize(ctx, 'baremetal:deploy_template:delete');
      const found = await lookup(id, ctx);
      await withNotifications('delete', found, async () => {
        if (!(await store.delete(found.uuid))) throw notFound(id);
      });
    },
  };
}
