// Ironic answers a request body that fails its JSON Schema with
// "Schema error for <name>: <message>", where the message is jsonschema's
// best match, followed by a "possible root cause" when that error is an
// anyOf whose alternatives failed. The evaluator itself lives in
// @stackspec/core; this is only Ironic's wording around it.
import {
  bestSchemaMatch,
  iterSchemaErrors,
  type JsonSchemaError,
  type JsonSchemaObject,
} from '@stackspec/core';

/**
 * The message Ironic puts in a 400 for a schema failure:
 * `Schema error for <name>: <best match>[. Possible root cause: <cause>]`,
 * or `undefined` when the value is valid.
 */
export function ironicSchemaMessage(
  instance: unknown,
  schema: JsonSchemaObject,
  name: string,
): string | undefined {
  const best = bestSchemaMatch(iterSchemaErrors(instance, schema));
  if (!best) return undefined;
  let message = `Schema error for ${name}: ${best.message}`;
  let cause: string | undefined;
  let current: JsonSchemaError | undefined = best;
  while (current?.context.length) {
    current = bestSchemaMatch(current.context);
    cause = current?.message;
  }
  if (cause !== undefined) message += `. Possible root cause: ${cause}`;
  return message;
}
