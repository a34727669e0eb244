import { describe, expect, it } from 'vitest';
import { isUuidLike, normalizeUuid, UuidSchema } from './uuid.js';

describe('isUuidLike (oslo.utils semantics)', () => {
  it.each([
    ['3fa85f64-5717-4562-b3fc-2c963f66afa6', true],
    ['3FA85F64-5717-4562-B3FC-2C963F66AFA6', true],
    ['3fa85f6457174562b3fc2c963f66afa6', true],
    ['{3fa85f64-5717-4562-b3fc-2c963f66afa6}', true],
    ['urn:uuid:3fa85f64-5717-4562-b3fc-2c963f66afa6', true],
    ['3fa8-5f64-5717-4562-b3fc-2c96-3f66-afa6', true],
    ['3fa85f64-5717-4562-b3fc-2c963f66afa', false],
    ['3fa85f64-5717-4562-b3fc-2c963f66afag', false],
    [' 3fa85f64-5717-4562-b3fc-2c963f66afa6', false],
    ['!3fa85f64-5717-4562-b3fc-2c963f66afa6', false],
    ['', false],
  ])('%j → %s', (value, expected) => {
    expect(isUuidLike(value)).toBe(expected);
  });

  it('rejects non-strings', () => {
    expect(isUuidLike(42)).toBe(false);
    expect(isUuidLike(null)).toBe(false);
  });
});

describe('normalizeUuid', () => {
  it('gives the canonical lower-case form', () => {
    expect(normalizeUuid('{3FA85F6457174562B3FC2C963F66AFA6}')).toBe('3fa85f64-5717-4562-b3fc-2c963f66afa6');
    expect(normalizeUuid('nope')).toBeUndefined();
  });
});

describe('UuidSchema', () => {
  it('accepts only the canonical 8-4-4-4-12 form', () => {
    expect(UuidSchema.safeParse('3fa85f64-5717-4562-b3fc-2c963f66afa6').success).toBe(true);
    expect(UuidSchema.safeParse('3fa85f6457174562b3fc2c963f66afa6').success).toBe(false);
  });
});
