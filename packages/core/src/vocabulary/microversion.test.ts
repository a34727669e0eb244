import { describe, expect, it } from 'vitest';
import {
  compareMicroversions,
  formatMicroversion,
  isAtLeast,
  MicroversionSchema,
  negotiateMicroversion,
  parseMicroversion,
  readMicroversionHeader,
} from './microversion.js';

describe('parseMicroversion', () => {
  it.each([
    ['1.32', { major: 1, minor: 32 }],
    ['2.0', { major: 2, minor: 0 }],
    ['1.05', undefined],
    ['latest', undefined],
    [' 1.2', undefined],
    ['1', undefined],
    ['1.2.3', undefined],
    ['a.b', undefined],
  ])('%j → %j', (text, expected) => {
    expect(parseMicroversion(text)).toEqual(expected);
  });

  it('formats and compares numerically, not lexically', () => {
    expect(formatMicroversion({ major: 1, minor: 9 })).toBe('1.9');
    expect(compareMicroversions('1.10', '1.9')).toBeGreaterThan(0);
    expect(compareMicroversions('1.9', '1.10')).toBeLessThan(0);
    expect(compareMicroversions('2.1', '1.99')).toBeGreaterThan(0);
    expect(isAtLeast({ major: 1, minor: 32 }, '1.32')).toBe(true);
    expect(() => compareMicroversions('x', '1.0')).toThrow(TypeError);
  });

  it('validates with a schema', () => {
    expect(MicroversionSchema.safeParse('latest').success).toBe(true);
    expect(MicroversionSchema.safeParse('1.x').success).toBe(false);
  });
});

describe('readMicroversionHeader', () => {
  it('reads the entry for the service from OpenStack-API-Version', () => {
    const h = new Headers({ 'OpenStack-API-Version': 'compute 2.86, placement 1.32' });
    expect(readMicroversionHeader(h, { service: 'placement' })).toBe('1.32');
    expect(readMicroversionHeader(h, { service: 'Compute' })).toBe('2.86');
    expect(readMicroversionHeader(h, { service: 'baremetal' })).toBeUndefined();
  });

  it('falls back to the legacy header, from plain objects too', () => {
    expect(
      readMicroversionHeader(
        { 'x-openstack-ironic-api-version': ' 1.55 ' },
        {
          service: 'baremetal',
          legacyHeader: 'X-OpenStack-Ironic-API-Version',
        },
      ),
    ).toBe('1.55');
  });
});

describe('negotiateMicroversion', () => {
  const opts = { service: 'placement', min: '1.0', max: '1.39' };
  const ask = (v?: string) =>
    negotiateMicroversion(v === undefined ? {} : { 'OpenStack-API-Version': `placement ${v}` }, opts);

  it('uses the minimum when nothing is asked', () => {
    expect(ask()).toMatchObject({ ok: true, version: { major: 1, minor: 0 } });
  });

  it('maps latest to the maximum', () => {
    expect(ask('latest')).toMatchObject({ ok: true, version: { major: 1, minor: 39 } });
  });

  it('reports invalid and unsupported versions', () => {
    expect(ask('1.abc')).toMatchObject({ ok: false, reason: 'invalid', requested: '1.abc' });
    expect(ask('1.40')).toMatchObject({ ok: false, reason: 'unsupported', version: { major: 1, minor: 40 } });
    expect(ask('0.9')).toMatchObject({ ok: false, reason: 'unsupported' });
  });

  it('honours a default other than the minimum', () => {
    expect(negotiateMicroversion({}, { ...opts, defaultVersion: '1.20' })).toMatchObject({
      version: { minor: 20 },
    });
  });
});
