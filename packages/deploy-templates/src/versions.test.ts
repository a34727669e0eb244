import { compareMicroversions } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { ironicProfile } from './profile.js';
import { negotiateVersion, parseApiVersion, stripsJsonSuffix, validateApiVersion } from './versions.js';

const h = (v?: string) => new Headers(v === undefined ? {} : { 'X-OpenStack-Ironic-API-Version': v });

describe('parseApiVersion', () => {
  it('reads each part like Python int()', () => {
    expect(parseApiVersion('1.55')).toEqual({ major: 1, minor: 55 });
    expect(parseApiVersion('01.055')).toEqual({ major: 1, minor: 55 });
    expect(parseApiVersion(' 1.5')).toEqual({ major: 1, minor: 5 });
    for (const bad of ['1', '1.2.3', '1.a', '', 'latest']) {
      expect(validateApiVersion(bad)).toMatchObject({
        ok: false,
        diagnostics: [
          { code: 'deploy-templates/invalid-version', message: expect.stringContaining(JSON.stringify(bad)) },
        ],
      });
      expect(() => parseApiVersion(bad)).toThrow(
        expect.objectContaining({ code: 'deploy-templates/invalid-version' }),
      );
    }
  });

  it("takes the whitespace and digits Python's int() takes, and refuses what it refuses", () => {
    // A header is Latin-1 text to Ironic: NEL and NBSP are whitespace to int(), as are ASCII ones.
    expect(parseApiVersion('1.5\u0085')).toEqual({ major: 1, minor: 5 });
    expect(parseApiVersion('\u00a01_0.5\t')).toEqual({ major: 10, minor: 5 });
    expect(parseApiVersion('1.\u0665')).toEqual({ major: 1, minor: 5 });
    for (const bad of ['\ufeff1.5', '\u001c1.5', '1.5_', '1.-_5', `1.${'1'.repeat(4301)}`]) {
      expect(validateApiVersion(bad).ok, JSON.stringify(bad).slice(0, 20)).toBe(false);
    }
  });
});

describe('negotiateVersion', () => {
  const latest = ironicProfile();
  it('defaults to 1.1 and maps latest to the maximum', () => {
    expect(negotiateVersion(h(), latest)).toEqual({ ok: true, version: { major: 1, minor: 1 } });
    expect(negotiateVersion(h('LATEST'), ironicProfile('21.4'))).toEqual({
      ok: true,
      version: { major: 1, minor: 82 },
    });
  });

  it('refuses malformed, foreign-major and out-of-range versions with Ironic’s messages', () => {
    expect(negotiateVersion(h('x'), latest)).toEqual({
      ok: false,
      withRange: false,
      message: 'Invalid value for X-OpenStack-Ironic-API-Version header',
    });
    expect(negotiateVersion(h('2.1'), latest)).toMatchObject({
      ok: false,
      withRange: true,
      message: expect.stringMatching(/^Mutually exclusive versions requested\. Version 2\.1/),
    });
    expect(negotiateVersion(h('1.0'), latest)).toMatchObject({ ok: false, withRange: true });
    expect(negotiateVersion(h('1.83'), ironicProfile('21.4'))).toMatchObject({ ok: false, withRange: true });
  });

  it('reads OpenStack-API-Version only in the newest profile', () => {
    const std = new Headers({ 'OpenStack-API-Version': 'baremetal 1.70' });
    expect(negotiateVersion(std, latest)).toEqual({ ok: true, version: { major: 1, minor: 70 } });
    expect(negotiateVersion(std, ironicProfile('21.4'))).toEqual({
      ok: true,
      version: { major: 1, minor: 1 },
    });
  });

  it('reads both headers as microversion_parse does in the newest profile, and only its own in 21.4', () => {
    const old = ironicProfile('21.4');
    const v = (minor: number) => ({ ok: true, version: { major: 1, minor } });
    const invalid = {
      ok: false,
      withRange: false,
      message: 'Invalid value for X-OpenStack-Ironic-API-Version header',
    };
    const both = new Headers({
      'OpenStack-API-Version': 'baremetal 1.70',
      'X-OpenStack-Ironic-API-Version': '1.60',
    });
    expect(negotiateVersion(both, latest)).toEqual(v(70));
    expect(negotiateVersion(both, old)).toEqual(v(60));
    // The last entry for the service counts, its name in any case; other services are skipped.
    const listed = new Headers({ 'OpenStack-API-Version': 'BareMetal 1.60, compute 2.1, baremetal 1.70' });
    expect(negotiateVersion(listed, latest)).toEqual(v(70));
    expect(negotiateVersion(new Headers({ 'OpenStack-API-Version': 'baremetal LATEST' }), latest)).toEqual(
      v(115),
    );
    // The whole rest of the entry is the version: a stray word makes it invalid, not ignored.
    expect(negotiateVersion(new Headers({ 'OpenStack-API-Version': 'baremetal 1.70 x' }), latest)).toEqual(
      invalid,
    );
    // A header sent twice: the newest Ironic takes the last value, 21.4 cannot read '1.60, 1.65'.
    const twice = new Headers([
      ['X-OpenStack-Ironic-API-Version', '1.60'],
      ['X-OpenStack-Ironic-API-Version', '1.65'],
    ]);
    expect(negotiateVersion(twice, latest)).toEqual(v(65));
    expect(negotiateVersion(twice, old)).toEqual(invalid);
    // An empty header is no version for the newest Ironic, and a malformed one for 21.4.
    expect(negotiateVersion(h(''), latest)).toEqual(v(1));
    expect(negotiateVersion(h(''), old)).toEqual(invalid);
    // Without a baremetal entry, Ironic's own header is read.
    const other = new Headers({
      'OpenStack-API-Version': 'compute 2.90',
      'X-OpenStack-Ironic-API-Version': '1.58',
    });
    expect(negotiateVersion(other, latest)).toEqual(v(58));
  });

  it('compares versions numerically', () => {
    expect(compareMicroversions({ major: 1, minor: 9 }, '1.10')).toBeLessThan(0);
    expect(compareMicroversions({ major: 1, minor: 91 }, '1.90')).toBeGreaterThan(0);
  });
});

describe('stripsJsonSuffix', () => {
  const latest = ironicProfile();
  const ask = (legacy?: string, standard?: string) =>
    new Headers({
      ...(legacy !== undefined ? { 'X-OpenStack-Ironic-API-Version': legacy } : {}),
      ...(standard !== undefined ? { 'OpenStack-API-Version': standard } : {}),
    });

  it('strips in the newest profile only when Ironic’s own header names a minor version from 1 to 90', () => {
    for (const v of ['1.1', '1.55', '1.90', ' 1.090 ', '1.-5', '2.50'])
      expect(stripsJsonSuffix(ask(v), latest)).toBe(true);
    for (const v of ['1.91', '1.115', '1.0', 'latest', 'LATEST', '', '1', '1.a', '1.50, 1.60']) {
      expect(stripsJsonSuffix(ask(v), latest), v).toBe(false);
    }
  });

  it('ignores OpenStack-API-Version and the absence of any header in the newest profile', () => {
    expect(stripsJsonSuffix(ask(), latest)).toBe(false);
    expect(stripsJsonSuffix(ask(undefined, 'baremetal 1.60'), latest)).toBe(false);
    expect(stripsJsonSuffix(ask('1.60', 'baremetal 1.95'), latest)).toBe(true);
  });

  it('always strips in the 21.4 profile', () => {
    for (const h of [ask(), ask('1.82'), ask('latest'), ask('1.abc')]) {
      expect(stripsJsonSuffix(h, ironicProfile('21.4'))).toBe(true);
    }
  });
});
