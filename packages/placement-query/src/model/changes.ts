// What one write did to a Placement, as data: the state of every provider,
// consumer, trait and resource class it touched, after the write (or null
// when it is gone). Three places read these: a ProviderStore applies them
// (its own committed writes, other servers' writes from the change log, and
// the whole database when a server starts), the SQL store turns them into
// row changes, and the change log keeps them as JSON for other servers.
// States rather than deltas, so applying one twice changes nothing.
import { z } from 'zod';

/** One inventory record in a change (Placement's field names). */
export const InventoryStateSchema = z.object({
  total: z.number().int(),
  reserved: z.number().int(),
  min_unit: z.number().int(),
  max_unit: z.number().int(),
  step_size: z.number().int(),
  allocation_ratio: z.number(),
});

/** A resource provider as a change carries it; its usages follow from the consumers' allocations. */
export const ProviderStateSchema = z.object({
  id: z
    .number()
    .int()
    .min(0)
    .describe('Internal id (creation order); 0 for a provider the database has not numbered yet.'),
  uuid: z.string(),
  name: z.string(),
  parentUuid: z.string().nullable(),
  generation: z.number().int(),
  inventories: z.record(z.string(), InventoryStateSchema).describe('By resource class, in the order kept.'),
  traits: z.array(z.string()).describe('Sorted.'),
  aggregates: z.array(z.string()).describe('In the order they were set.'),
  createdAt: z.string().describe('ISO 8601.'),
  updatedAt: z.string().describe('ISO 8601.'),
});
/** A resource provider as a change carries it. */
export type ProviderState = z.infer<typeof ProviderStateSchema>;

/** A consumer with its allocations, as a change carries it. */
export const ConsumerStateSchema = z.object({
  uuid: z.string(),
  projectId: z.string(),
  userId: z.string(),
  consumerType: z.string(),
  generation: z.number().int(),
  allocations: z
    .record(z.string(), z.record(z.string(), z.number().int()))
    .describe('Provider uuid → resource class → amount.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** A consumer as a change carries it. */
export type ConsumerState = z.infer<typeof ConsumerStateSchema>;

/** One entity after a write: its new state, or `null` when the write removed it. */
export const PlacementChangeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('provider'), uuid: z.string(), state: ProviderStateSchema.nullable() }),
  z.object({ type: z.literal('consumer'), uuid: z.string(), state: ConsumerStateSchema.nullable() }),
  z.object({
    type: z.literal('trait'),
    name: z.string(),
    createdAt: z.string().nullable().describe('When it was created; null: deleted.'),
  }),
  z.object({
    type: z.literal('resource-class'),
    name: z.string(),
    createdAt: z.string().nullable().describe('When it was created; null: deleted.'),
  }),
  z.object({
    type: z.literal('rename-resource-class'),
    from: z.string(),
    to: z.string(),
  }),
  z
    .object({ type: z.literal('reload') })
    .describe('The whole state was rewritten (an import): read it again from the tables.'),
]);
/** One entity after a write. */
export type PlacementChange = z.infer<typeof PlacementChangeSchema>;

/** One committed write in the change log: its position (1, 2, 3… with no gaps) and what it changed. */
export const ChangeEntrySchema = z.object({
  position: z.number().int().min(1),
  changes: z.array(PlacementChangeSchema),
});
/** One committed write in the change log. */
export type ChangeEntry = z.infer<typeof ChangeEntrySchema>;
