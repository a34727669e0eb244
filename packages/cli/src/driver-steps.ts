import { CONFIDENCE, claimMisspelling, type FileChecker, validateWithSchema } from '@stackspec/core';
import { z } from 'zod';

const ArgInfoSchema = z
  .object({ description: z.string().optional(), required: z.boolean().optional() })
  .loose();

/** One deploy step as a node's driver reports it. */
export const DriverStepSchema = z
  .object({
    interface: z.string().min(1),
    step: z.string().min(1),
    priority: z.number().int().min(0),
    argsinfo: z.record(z.string(), ArgInfoSchema).nullable().optional(),
  })
  .loose();

/** A driver steps file: `driver_steps: [...]` (or a bare list in a file named `driver-steps.yaml`). */
export const DriverStepsFileSchema = z.strictObject({ driver_steps: z.array(DriverStepSchema) });

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The checker for the driver steps files `stackspec schedule` reads: a
 * mapping with a `driver_steps` list (`CONFIDENCE.marker`), or a close
 * misspelling of that key holding a list. `check` validates the file
 * against {@link DriverStepsFileSchema} (`stackspec/driver-steps/*` codes).
 */
export const driverStepsChecker: FileChecker = {
  kind: 'driver-steps',
  label: 'driver deploy steps',
  recognise({ document }) {
    const value = document?.value;
    if (!isMapping(value)) return undefined;
    if (Array.isArray(value.driver_steps)) return { confidence: CONFIDENCE.marker };
    return claimMisspelling(value, [{ key: 'driver_steps', fits: Array.isArray }]);
  },
  check({ document }) {
    return validateWithSchema(DriverStepsFileSchema, document, { area: 'stackspec/driver-steps' })
      .diagnostics;
  },
};
