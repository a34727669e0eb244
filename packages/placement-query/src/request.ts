import { z } from 'zod';

/** Amounts per resource class (`{ VCPU: 2, MEMORY_MB: 1024 }`); every amount is a positive integer. */
export const ResourceAmountsSchema = z.record(z.string(), z.number().int().positive());
/** Amounts per resource class. */
export type ResourceAmounts = z.infer<typeof ResourceAmountsSchema>;

/** A set of names written as a sorted list without repeats. */
const NameSetSchema = z.array(z.string()).min(1);

/**
 * One request group of `GET /allocation_candidates`: the unsuffixed group
 * (`suffix: ''`, which may spread over a provider tree and sharing providers)
 * or a suffixed one (`resources1`, `resources_NIC`, served by one provider).
 *
 * `requiredTraits` and `memberOf` are lists of any-of sets that are ANDed:
 * `[["A"], ["B", "C"]]` means A and (B or C). Forbidden traits and
 * aggregates are plain sets: having any one of them excludes a provider.
 */
export const RequestGroupSchema = z.object({
  suffix: z.string(),
  resources: ResourceAmountsSchema,
  requiredTraits: z.array(NameSetSchema),
  forbiddenTraits: z.array(z.string()),
  memberOf: z.array(NameSetSchema),
  forbiddenAggregates: z.array(z.string()),
  inTree: z.string().optional(),
});
/** One request group. */
export type RequestGroup = z.infer<typeof RequestGroupSchema>;

/** Traits the root of every candidate's tree must have (`required`) or lack (`forbidden`). */
export const RootRequiredSchema = z.object({
  required: z.array(z.string()),
  forbidden: z.array(z.string()),
});
/** The `root_required` filter. */
export type RootRequired = z.infer<typeof RootRequiredSchema>;

/** A microversion string such as `1.39`. */
export const MicroversionTextSchema = z
  .string()
  .regex(/^1\.(?:[0-9]|[1-2][0-9]|3[0-9])$/, 'must be 1.0 to 1.39');

/** A parsed `GET /allocation_candidates` query. */
export const AllocationCandidatesRequestSchema = z.object({
  endpoint: z.literal('allocation_candidates'),
  microversion: MicroversionTextSchema,
  limit: z.number().int().positive().optional(),
  groupPolicy: z.enum(['none', 'isolate']).optional(),
  rootRequired: RootRequiredSchema.optional(),
  sameSubtree: z.array(NameSetSchema),
  groups: z.array(RequestGroupSchema),
});
/** A parsed `GET /allocation_candidates` query. */
export type AllocationCandidatesRequest = z.infer<typeof AllocationCandidatesRequestSchema>;

/** A parsed `GET /resource_providers` query; every filter looks at the provider itself. */
export const ResourceProvidersRequestSchema = z.object({
  endpoint: z.literal('resource_providers'),
  microversion: MicroversionTextSchema,
  name: z.string().min(1).optional(),
  uuid: z.string().optional(),
  inTree: z.string().optional(),
  resources: ResourceAmountsSchema.optional(),
  requiredTraits: z.array(NameSetSchema),
  forbiddenTraits: z.array(z.string()),
  memberOf: z.array(NameSetSchema),
  forbiddenAggregates: z.array(z.string()),
});
/** A parsed `GET /resource_providers` query. */
export type ResourceProvidersRequest = z.infer<typeof ResourceProvidersRequestSchema>;

/** Either typed query, told apart by `endpoint`. */
export const PlacementQuerySchema = z.discriminatedUnion('endpoint', [
  AllocationCandidatesRequestSchema,
  ResourceProvidersRequestSchema,
]);
/** Either typed query. */
export type PlacementQuery = z.infer<typeof PlacementQuerySchema>;

/** The two query endpoints. */
export type QueryEndpoint = PlacementQuery['endpoint'];
