import { describe, expect, it } from 'vitest';
import { ironicProfile } from './profile.js';
import { compareApiVersions, negotiateVersion, parseApiVersion } from './versions.js';

const h = (v?: string) => new Headers(v === undefined ? {} : { 'X-OpenStack-Ironic-API-Version': v });

describe('parseApiVersion', () => {
  it('reads each part like Python int()', () => {
    expect(parseApiVersion('1.55')).toEqual({ major: 1, minor: 55 });
    expect(parseApiVersion('01.055')).toEqual({ major: 1, minor: 55 });
    expect(parseApiVersion(' 1.5')).toEqual({ major: 1, minor: 5 });
    for (const bad of ['1', '1.2.3', '1.a', '', 'latest']) expect(parseApiVersion(bad)).toBeUndefined();
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

  it('compares versions numerically', () => {
    expect(compareApiVersions({ major: 1, minor: 9 }, '1.10')).toBeLessThan(0);
    expect(compareApiVersions({ major: 1, minor: 91 }, '1.90')).toBeGreaterThan(0);
  });
});
