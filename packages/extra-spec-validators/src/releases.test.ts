import { isStackspecError } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import {
  compareReleases,
  compareVersions,
  describeRelease,
  firstReleaseWithOsTraits,
  LATEST_RELEASE,
  resolveRelease,
} from './releases.js';

describe('resolveRelease', () => {
  it('finds a release by code name, series, Nova major or full version', () => {
    expect(resolveRelease('zed').nova).toBe(26);
    expect(resolveRelease('Zed').name).toBe('zed');
    expect(resolveRelease('2023.1').name).toBe('antelope');
    expect(resolveRelease('26').name).toBe('zed');
    expect(resolveRelease('26.2.2').name).toBe('zed');
    expect(resolveRelease(resolveRelease('yoga')).name).toBe('yoga');
  });

  it('defaults to the newest release', () => {
    expect(resolveRelease()).toBe(LATEST_RELEASE);
    expect(resolveRelease('latest')).toBe(LATEST_RELEASE);
    expect(LATEST_RELEASE.osTraits).toBe('3.9.0');
  });

  it('refuses an unknown release with a hint listing the names', () => {
    let error: unknown;
    try {
      resolveRelease('train');
    } catch (e) {
      error = e;
    }
    expect(isStackspecError(error) && error.code).toBe('extra-specs/unknown-release');
    expect(isStackspecError(error) && error.diagnostics[0]?.hint).toContain('ussuri');
    expect(() => resolveRelease('20')).toThrow();
    expect(() => resolveRelease('2019.2')).toThrow();
  });
});

describe('release ordering', () => {
  it('orders releases and versions', () => {
    expect(compareReleases('zed', 'yoga')).toBeGreaterThan(0);
    expect(compareReleases('2023.1', 'antelope')).toBe(0);
    expect(compareVersions('2.10.0', '2.9.0')).toBeGreaterThan(0);
    expect(compareVersions('3.0', '3.0.0')).toBe(0);
  });

  it('maps an os-traits release to the first Nova series pinned to it or later', () => {
    expect(firstReleaseWithOsTraits('2.9.0')?.name).toBe('zed');
    expect(firstReleaseWithOsTraits('2.8.0')?.name).toBe('zed');
    expect(firstReleaseWithOsTraits('1.0.0')?.name).toBe('ussuri');
    expect(firstReleaseWithOsTraits('3.7.0')?.name).toBe('hibiscus');
    expect(firstReleaseWithOsTraits('9.0.0')).toBeUndefined();
  });

  it('describes a release for messages', () => {
    expect(describeRelease(resolveRelease('zed'))).toBe('zed (2022.2, Nova 26)');
    expect(describeRelease(LATEST_RELEASE)).toContain('in development');
  });
});
