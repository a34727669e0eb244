import { createDiagnostic, NotFoundError, ValidationError } from '@stackspec/core';

/**
 * Placement's error codes, as they appear in the `code` member of its error
 * bodies from microversion 1.23.
 */
export const PLACEMENT_ERROR_CODES = {
  default: 'placement.undefined_code',
  inventoryInUse: 'placement.inventory.inuse',
  concurrentUpdate: 'placement.concurrent_update',
  duplicateName: 'placement.duplicate_name',
  providerInUse: 'placement.resource_provider.inuse',
  cannotDeleteParent: 'placement.resource_provider.cannot_delete_parent',
  providerNotFound: 'placement.resource_provider.not_found',
  duplicateKey: 'placement.query.duplicate_key',
  badValue: 'placement.query.bad_value',
  missingValue: 'placement.query.missing_value',
} as const;

/** One of Placement's error codes. */
export type PlacementErrorCode = (typeof PLACEMENT_ERROR_CODES)[keyof typeof PLACEMENT_ERROR_CODES];

/** Where a query error comes from, for our own diagnostics. */
export interface QueryErrorInit {
  /** Our `placement-query/…` diagnostic code. */
  diagnostic: string;
  /** The query parameter at fault (`member_of1`), when one is. */
  parameter?: string;
  hint?: string;
}

/**
 * A 400 exactly as Placement words it: `message` is Placement's text and the
 * error's `code` is Placement's code, so an HTTP layer renders the body with
 * `placementErrorBody(400, e.message, { code: e.code })`. The single
 * diagnostic carries our own code and points at the parameter.
 */
export function queryError(
  message: string,
  init: QueryErrorInit,
  code: PlacementErrorCode = PLACEMENT_ERROR_CODES.default,
): ValidationError {
  return new ValidationError(message, {
    code,
    diagnostics: [
      createDiagnostic({
        code: init.diagnostic,
        message,
        path:
          init.parameter === undefined
            ? ''
            : `/${init.parameter.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        ...(init.hint ? { hint: init.hint } : {}),
      }),
    ],
  });
}

/**
 * Placement's 404 for a route that does not exist at the requested
 * microversion. Placement's body says nothing; the message here says which
 * microversion the route needs.
 */
export function routeNotFound(description: string, hint?: string): NotFoundError {
  return new NotFoundError(description, {
    code: PLACEMENT_ERROR_CODES.default,
    diagnostics: [
      createDiagnostic({
        code: 'placement-query/not-found',
        message: description,
        ...(hint ? { hint } : {}),
      }),
    ],
  });
}
