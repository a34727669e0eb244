import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { atLeast, negotiatePlacementVersion, toMicroversion } from './microversion.js';

const h = (v?: string) => new Headers(v === undefined ? {} : { 'OpenStack-API-Version': v });

describe('negotiatePlacementVersion', () => {
  it('defaults to 1.0 and maps latest to 1.39', () => {
    expect(negotiatePlacementVersion(h())).toEqual({ ok: true, version: { major: 1, minor: 0 } });
    expect(negotiatePlacementVersion(h('placement latest'))).toEqual({
      ok: true,
      version: { major: 1, minor: 39 },
    });
    expect(negotiatePlacementVersion(h('compute 2.1'))).toEqual({
      ok: true,
      version: { major: 1, minor: 0 },
    });
  });

  it('reads parts like int(): 1.03 is 1.3 and spaces are fine', () => {
    expect(negotiatePlacementVersion(h('placement 1.03'))).toMatchObject({ version: { minor: 3 } });
    expect(negotiatePlacementVersion(h('placement  1.32 '))).toMatchObject({ version: { minor: 32 } });
    expect(
      negotiatePlacementVersion({ 'openstack-api-version': 'compute 2.1, placement 1.5' }),
    ).toMatchObject({
      version: { minor: 5 },
    });
  });

  it("answers 406 outside 1.0-1.39 and 400 for junk, with Placement's words", () => {
    expect(negotiatePlacementVersion(h('placement 1.40'))).toEqual({
      ok: false,
      status: 406,
      message: 'Invalid microversion: Unacceptable version header: 1.40',
    });
    expect(negotiatePlacementVersion(h('placement 1.x'))).toEqual({
      ok: false,
      status: 400,
      message:
        "Invalid microversion: invalid version string: 1.x; invalid literal for int() with base 10: 'x'",
    });
    expect(negotiatePlacementVersion(h('placement 1'))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/'minor'$/),
    });
  });
});

describe('toMicroversion', () => {
  it('accepts 1.0 to 1.39 and latest only', () => {
    expect(toMicroversion('1.32')).toEqual({ major: 1, minor: 32 });
    expect(toMicroversion('latest')).toEqual({ major: 1, minor: 39 });
    expect(toMicroversion({ major: 1, minor: 5 })).toEqual({ major: 1, minor: 5 });
    expect(atLeast({ major: 1, minor: 32 }, 32)).toBe(true);
    expect(atLeast({ major: 1, minor: 31 }, 32)).toBe(false);
  });

  it('rejects anything else with our located error, never a foreign one', () => {
    for (const bad of [
      '1.40',
      '2.0',
      '1.',
      'x',
      '',
      '1.3.1',
      { major: 1, minor: 40 },
      { major: 1, minor: 1.5 },
      null,
      7,
    ]) {
      let caught: unknown;
      try {
        toMicroversion(bad as never);
      } catch (e) {
        caught = e;
      }
      expect(isStackspecError(caught), JSON.stringify(bad)).toBe(true);
      expect(caught).toMatchObject({
        status: 400,
        code: 'placement-query/invalid-microversion',
        diagnostics: [{ path: '/microversion', hint: expect.stringContaining('1.39') }],
      });
    }
  });
});
