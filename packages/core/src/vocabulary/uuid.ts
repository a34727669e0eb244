import { z } from 'zod';

/** A UUID in canonical 8-4-4-4-12 form, any case; the version digit is not checked. */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A canonical UUID string (8-4-4-4-12 hexadecimal digits, any case). */
export const UuidSchema = z
  .string()
  .regex(UUID_PATTERN, 'must be a UUID like 3fa85f64-5717-4562-b3fc-2c963f66afa6');

/**
 * True when OpenStack would treat the text as a UUID (oslo.utils'
 * `is_uuid_like`): 32 hexadecimal digits in any case, hyphens anywhere or
 * nowhere, optional surrounding braces and `urn:`/`uuid:` markers.
 */
export function isUuidLike(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const stripped = value
    .replaceAll('urn:', '')
    .replaceAll('uuid:', '')
    .replace(/^[{}]+|[{}]+$/g, '')
    .replaceAll('-', '');
  return /^[0-9a-fA-F]{32}$/.test(stripped);
}

/** The canonical lower-case 8-4-4-4-12 spelling of a UUID-like value, or `undefined`. */
export function normalizeUuid(value: string): string | undefined {
  if (!isUuidLike(value)) return undefined;
  const hex = value.replaceAll('urn:', '').replaceAll('uuid:', '').replace(/[{}-]/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
