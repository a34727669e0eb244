import { z } from 'zod';
import { type DeployStep, DeployTemplateSchema } from '../schema.js';

/**
 * A deploy template as storage holds it: the API's fields plus the internal
 * `id` (creation order, the default sort and the pagination tie-breaker) and
 * the object `version` Ironic records. Timestamps are ISO 8601 UTC with
 * microseconds.
 */
export const StoredTemplateSchema = DeployTemplateSchema.extend({
  id: z
    .number()
    .int()
    .describe('Internal id: creation order, the default sort and the pagination tie-breaker.'),
  version: z.string().describe('Object version, as Ironic records it.'),
});
/** A deploy template as storage holds it. */
export type StoredTemplate = z.output<typeof StoredTemplateSchema>;

/** Columns a list may be sorted by (Ironic's `sort_key` values). */
export const SORT_KEYS = ['id', 'uuid', 'name', 'created_at', 'updated_at', 'version'] as const;
/** A sortable column. */
export type SortKey = (typeof SORT_KEYS)[number];

/** Options of {@link DeployTemplateStore.list}. */
export interface ListTemplatesOptions {
  /** Largest number of templates returned (default: all). */
  limit?: number;
  /** Return templates after this one in the chosen order. */
  marker?: StoredTemplate;
  /** Default `id`; ties are always broken by `id`. */
  sortKey?: SortKey;
  /** Default `asc`. */
  sortDir?: 'asc' | 'desc';
}

/** A new template: its uuid is chosen by the caller. */
export interface NewTemplate {
  uuid: string;
  name: string;
  steps: DeployStep[];
  extra: Record<string, unknown>;
}

/** Fields a modification may change. Omitted fields stay as they are. */
export interface TemplateChanges {
  name?: string;
  steps?: DeployStep[];
  extra?: Record<string, unknown>;
}

/**
 * Where deploy templates live. Every write is one transaction: it either
 * happens completely or not at all. A duplicate name or uuid is core's
 * `ConflictError` (409) with Ironic's message, also when two writers race.
 */
export interface DeployTemplateStore {
  /** Adds a template; throws `ConflictError` when the name or uuid is taken. */
  create(template: NewTemplate): Promise<StoredTemplate>;
  /** The template with exactly this uuid (case-sensitive, as Ironic on SQLite), or `undefined`. */
  getByUuid(uuid: string): Promise<StoredTemplate | undefined>;
  /** The template with this exact name, or `undefined`. */
  getByName(name: string): Promise<StoredTemplate | undefined>;
  /** Templates in the requested order, after `marker` when given. */
  list(options?: ListTemplatesOptions): Promise<StoredTemplate[]>;
  /** Templates whose name is one of `names`, in id order (what a deploy selects). */
  listByNames(names: readonly string[]): Promise<StoredTemplate[]>;
  /**
   * Reads the template with this uuid under a row lock, lets `change`
   * compute the new fields from it, and writes them in the same transaction,
   * so concurrent modifications never lose each other's work. Returns
   * `undefined` when the template does not exist; whatever `change` throws
   * aborts the transaction and is rethrown. `updated_at` moves only when a
   * field really changed.
   */
  modify(
    uuid: string,
    change: (current: StoredTemplate) => TemplateChanges | Promise<TemplateChanges>,
  ): Promise<StoredTemplate | undefined>;
  /** Removes a template with its steps; false when there was none. */
  delete(uuid: string): Promise<boolean>;
  /** Releases connections (the store cannot be used afterwards). */
  close(): Promise<void>;
}
