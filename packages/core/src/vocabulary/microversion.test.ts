import { describe, expect, it } from 'vitest';
import {
  compareMicroversions,
  formatMicroversion,
  isAtLeast,
  MicroversionSchema,
  negotiateMicroversion,
  parseMicroversion,
  readMicroversionHeader,
  validateMicroversion,
} from './microversion.js';

describe('validateMicroversion and parseMicroversion', () => {
  it.each([
    ['1.32', { major: 1, minor: 32 }],
    ['2.0', { major: 2, minor: 0 }],
  ])('reads %j as %j', (text, expected) => {
    expect(validateMicroversion(text)).toEqual({ ok: true, value: expected, diagnostics: [] });
    expect(parseMicroversion(text)).toEqual(expected);
  });

  it.each(['1.05', 'latest', ' 1.2', '1', '1.2.3', 'a.b'])('refuses %j with microversion/invalid', (text) => {
    const r = validateMicroversion(text);
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        code: 'microversion/invalid',
        message: expect.stringContaining(JSON.stringify(text)),
      }),
    ]);
    expect(() => parseMicroversion(text)).toThrow(
      expect.objectContaining({ code: 'microversion/invalid', status: 400 }),
    );
  });

  it('refuses a value that is not a string without crashing', () => {
    expect(validateMicroversion(1.2 as unknown as string).ok).toBe(false);
  });

  it('formats and compares numerically, not lexically', () => {
    expect(formatMicroversion({ major: 1, minor: 9 })).toBe('1.9');
    expect(compareMicroversions('1.10', '1.9')).toBeGreaterThan(0);
    expect(compareMicroversions('1.9', '1.10')).toBeLessThan(0);
    expect(compareMicroversions('2.1', '1.99')).toBeGreaterThan(0);
    expect(isAtLeast({ major: 1, minor: 32 }, '1.32')).toBe(true);
    expect(() => compareMicroversions('x', '1.0')).toThrow(
      expect.objectContaining({ code: 'microversion/invalid' }),
    );
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

  it('takes the last entry for the service, as microversion_parse does', () => {
    const h = new Headers();
    h.append('OpenStack-API-Version', 'compute 2.1');
    h.append('OpenStack-API-Version', 'placement 1.2, compute 2.60');
    expect(readMicroversionHeader(h, { service: 'compute' })).toBe('2.60');
    expect(
      readMicroversionHeader(
        { 'openstack-api-version': ['compute 2.1', 'compute 2.5'] },
        { service: 'compute' },
      ),
    ).toBe('2.5');
  });

  it('keeps the version text whole and skips entries without one', () => {
    expect(
      readMicroversionHeader(
        { 'OpenStack-API-Version': 'compute  2.1   x ,compute' },
        { service: 'compute' },
      ),
    ).toBe('2.1   x');
    expect(
      readMicroversionHeader({ 'OpenStack-API-Version': 'compute' }, { service: 'compute' }),
    ).toBeUndefined();
  });

  it('lets the last of two differently spelled names win in a plain object', () => {
    const h = { 'OpenStack-API-Version': 'compute 2.1', 'openstack-api-version': 'compute 2.2' };
    expect(readMicroversionHeader(h, { service: 'compute' })).toBe('2.2');
  });

  it('folds a repeated legacy header to its last value, possibly empty', () => {
    const legacyHeader = 'X-OpenStack-Nova-API-Version';
    const h = new Headers();
    h.append(legacyHeader, '2.3');
    h.append(legacyHeader, ' 2.4 ');
    expect(readMicroversionHeader(h, { service: 'compute', legacyHeader })).toBe('2.4');
    expect(readMicroversionHeader({ [legacyHeader]: '2.5,' }, { service: 'compute', legacyHeader })).toBe('');
    // The standard header wins when it names the service; legacy headers are tried in order.
    expect(
      readMicroversionHeader(
        { 'OpenStack-API-Version': 'compute 2.9', [legacyHeader]: '2.5', 'X-Old': '2.1' },
        { service: 'compute', legacyHeader: ['X-Old', legacyHeader] },
      ),
    ).toBe('2.9');
    expect(
      readMicroversionHeader(
        { [legacyHeader]: '2.5', 'X-Old': '2.1' },
        { service: 'compute', legacyHeader: ['X-Old', legacyHeader] },
      ),
    ).toBe('2.1');
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

  it('takes latest in any case only when asked to (Ironic), not by default (Nova, Placement)', () => {
    expect(ask('LATEST')).toMatchObject({ ok: false, reason: 'invalid', requested: 'LATEST' });
    const ironic = {
      service: 'baremetal',
      legacyHeader: 'X-OpenStack-Ironic-API-Version',
      min: '1.1',
      max: '1.92',
    };
    expect(
      negotiateMicroversion(
        { 'X-OpenStack-Ironic-API-Version': 'Latest' },
        { ...ironic, latest: 'any-case' },
      ),
    ).toMatchObject({ ok: true, version: { major: 1, minor: 92 } });
  });

  it('treats an empty legacy header as an invalid request, as Nova does', () => {
    const nova = {
      service: 'compute',
      legacyHeader: 'X-OpenStack-Nova-API-Version',
      min: '2.1',
      max: '2.96',
    };
    expect(negotiateMicroversion({ 'X-OpenStack-Nova-API-Version': '' }, nova)).toMatchObject({
      ok: false,
      reason: 'invalid',
      requested: '',
    });
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
