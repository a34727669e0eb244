import { z } from 'zod';
import { StageIdSchema } from './stages.js';

/** A provider (or, for a tree, its root) that a stage dropped, and why in words. */
export const ExplainExampleSchema = z.object({
  name: z.string(),
  uuid: z.string(),
  /** Without the name: `VCPU 6 free of 32 (reserved 2, ratio 1.0), 8 asked`. */
  reason: z.string(),
});
/** A provider a stage dropped, with the reason. */
export type ExplainExample = z.infer<typeof ExplainExampleSchema>;

/**
 * One stage of an explanation: how many units went in (`before`) and how
 * many it kept. `unit` says what is counted: providers (a one-provider group,
 * `/resource_providers`), trees (the unsuffixed group where trees or
 * sharing providers exist: an anchor with the sharing providers it may
 * borrow from) or candidates (combinations of group requests). `examples`
 * name a few units the stage dropped, only on the stage that left none.
 */
export const ExplainStageSchema = z.object({
  stage: StageIdSchema,
  /** The constraint in words: `room for VCPU:8`, `required HW_CPU_X86_AVX512F`. */
  label: z.string(),
  unit: z.enum(['providers', 'trees', 'candidates']),
  before: z.number().int().nonnegative(),
  kept: z.number().int().nonnegative(),
  /** The class of a `capacity` stage. */
  resourceClass: z.string().optional(),
  examples: z.array(ExplainExampleSchema),
});
/** One stage of an explanation. */
export type ExplainStage = z.infer<typeof ExplainStageSchema>;

/** One request group's stages and what the engine made of it. */
export const ExplainGroupSchema = z.object({
  suffix: z.string(),
  /** `one-provider` counts providers; `tree` counts anchors (trees with the sharing providers they may use). */
  mode: z.enum(['one-provider', 'tree']),
  stages: z.array(ExplainStageSchema),
  /** Units left after the last stage. */
  kept: z.number().int().nonnegative(),
  /** Group requests (one way to serve the group at one anchor) the engine made, and at how many anchors. */
  requests: z.number().int().nonnegative(),
  anchors: z.number().int().nonnegative(),
  /** Placement's 400 for this group, which it only raises if the search gets that far. */
  error: z.string().optional(),
});
/** One request group's stages. */
export type ExplainGroup = z.infer<typeof ExplainGroupSchema>;

/** The first stage that kept nothing; `group` is the suffix when it is a group's stage. */
export const EmptiedBySchema = z.object({
  group: z.string().optional(),
  stage: StageIdSchema,
  label: z.string(),
});
/** The stage that removed the last candidates. */
export type EmptiedBy = z.infer<typeof EmptiedBySchema>;

/**
 * Why `GET /allocation_candidates` answers what it does: per group, how
 * many units each constraint kept, in the order the engine applies them;
 * then the request-wide stages (same anchor for every group, group_policy,
 * summed capacity, same_subtree, sharing providers, one provider per tree
 * before 1.29, limit). `candidates` is the engine's count before `limit`,
 * `returned` its answer's length; `emptiedBy` is the first stage that kept
 * nothing, absent when there are candidates. Plain JSON: an HTTP layer can
 * send it as it is.
 */
export const AllocationCandidatesExplanationSchema = z.object({
  endpoint: z.literal('allocation_candidates'),
  microversion: z.string(),
  /** The request as a query string (normalised). */
  query: z.string(),
  groups: z.array(ExplainGroupSchema),
  request: z.array(ExplainStageSchema),
  candidates: z.number().int().nonnegative(),
  returned: z.number().int().nonnegative(),
  emptiedBy: EmptiedBySchema.optional(),
});
/** An explanation of an allocation candidates query. */
export type AllocationCandidatesExplanation = z.infer<typeof AllocationCandidatesExplanationSchema>;

/** Why `GET /resource_providers` answers what it does: every filter, in Placement's order, with the providers it kept. */
export const ResourceProvidersExplanationSchema = z.object({
  endpoint: z.literal('resource_providers'),
  microversion: z.string(),
  query: z.string(),
  stages: z.array(ExplainStageSchema),
  providers: z.number().int().nonnegative(),
  emptiedBy: EmptiedBySchema.optional(),
});
/** An explanation of a resource providers query. */
export type ResourceProvidersExplanation = z.infer<typeof ResourceProvidersExplanationSchema>;

/** Either explanation, told apart by `endpoint`. */
export const PlacementExplanationSchema = z.discriminatedUnion('endpoint', [
  AllocationCandidatesExplanationSchema,
  ResourceProvidersExplanationSchema,
]);
/** Either explanation. */
export type PlacementExplanation = z.infer<typeof PlacementExplanationSchema>;
