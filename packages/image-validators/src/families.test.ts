import { describe, expect, it } from 'vitest';
import { DISTRO_FAMILIES, familyOf, SAHARA_DISTRO_FAMILIES } from './families.js';

describe('distribution families', () => {
  it("keeps Sahara's map as Sahara has it: no plain debian", () => {
    expect(SAHARA_DISTRO_FAMILIES).toEqual({
      centos: 'redhat',
      centos7: 'redhat',
      fedora: 'redhat',
      redhat: 'redhat',
      rhel: 'redhat',
      redhatenterpriseserver: 'redhat',
      ubuntu: 'debian',
    });
    expect(familyOf('debian', SAHARA_DISTRO_FAMILIES)).toBeUndefined();
  });

  it("extends Sahara's map with Debian and common rebuilds by default", () => {
    for (const [id, family] of Object.entries(SAHARA_DISTRO_FAMILIES)) expect(familyOf(id)).toBe(family);
    expect(familyOf('debian')).toBe('debian');
    expect(familyOf('rocky')).toBe('redhat');
    expect(familyOf('almalinux', DISTRO_FAMILIES)).toBe('redhat');
  });

  it('answers undefined for unknown ids, inherited names and other spellings', () => {
    expect(familyOf('gentoo')).toBeUndefined();
    expect(familyOf('toString')).toBeUndefined();
    expect(familyOf('__proto__')).toBeUndefined();
    expect(familyOf('Ubuntu')).toBeUndefined();
    expect(familyOf('')).toBeUndefined();
    expect(familyOf('mine', { mine: 'debian' })).toBe('debian');
  });

  it('cannot be changed by callers', () => {
    expect(Object.isFrozen(DISTRO_FAMILIES)).toBe(true);
    expect(Object.isFrozen(SAHARA_DISTRO_FAMILIES)).toBe(true);
  });
});
