import { describe, expect, it } from 'vitest';
import { canonicalValue, matchRequirements, readCapabilities, satisfiesFilter } from './capabilities.js';
import { relativeTo, resolveReference } from './paths.js';

describe('canonicalValue', () => {
  it('compares YAML 1.1 booleans and numbers as text', () => {
    expect(canonicalValue(true)).toBe('true');
    expect(canonicalValue(2)).toBe('2');
    expect(canonicalValue(1.5)).toBe('1.5');
    expect(canonicalValue('puppet')).toBe('puppet');
    expect(canonicalValue(null)).toBeUndefined();
    expect(canonicalValue([1])).toBeUndefined();
  });

  it("spells floats as Python's str() does, so 1.0 stays apart from 1", () => {
    expect(canonicalValue(1, '1.0')).toBe('1.0');
    expect(canonicalValue(1, '1.')).toBe('1.0');
    expect(canonicalValue(1000, '1.0e+3')).toBe('1000.0');
    expect(canonicalValue(100000, '1E5')).toBe('100000.0');
    expect(canonicalValue(1, '1')).toBe('1');
    expect(canonicalValue(1)).toBe('1');
    expect(canonicalValue(0.1)).toBe('0.1');
    expect(canonicalValue(1e16, '1.0e+16')).toBe('1e+16');
    expect(canonicalValue(1.5e-7)).toBe('1.5e-07');
    expect(canonicalValue(Number.POSITIVE_INFINITY)).toBe('inf');
    expect(canonicalValue(Number.NEGATIVE_INFINITY)).toBe('-inf');
    expect(canonicalValue(Number.NaN)).toBe('nan');
    expect(canonicalValue(-0, '-0.0')).toBe('-0.0');
    // Python prints a big int in full.
    expect(canonicalValue(1e21, '1000000000000000000000')).toBe('1000000000000000000000');
  });
});

describe('readCapabilities', () => {
  it('offers each member of a list once', () => {
    expect(readCapabilities({ resource_type: ['OS::A', 'OS::B', 'OS::A'], n: 1 }).capabilities).toEqual({
      resource_type: ['OS::A', 'OS::B'],
      n: ['1'],
    });
  });

  it('reports a section that is not a mapping', () => {
    const r = readCapabilities('puppet', { file: 'x.yaml' });
    expect(r.capabilities).toBeUndefined();
    expect(r.diagnostics[0]).toMatchObject({
      code: 'heat/capabilities/not-a-mapping',
      file: 'x.yaml',
      path: '/capabilities',
    });
  });

  it('reports nested values and keeps the valid keys', () => {
    const r = readCapabilities({ a: 'b', c: [{ d: 1 }], e: null });
    expect(r.capabilities).toEqual({ a: ['b'] });
    expect(r.diagnostics.map((d) => d.path)).toEqual(['/capabilities/c/0', '/capabilities/e']);
  });
});

describe('matchRequirements', () => {
  it('allows extra capabilities and names the first failing key', () => {
    expect(matchRequirements({ deployment: ['puppet'], extra: ['x'] }, { deployment: 'puppet' })).toEqual({
      ok: true,
    });
    expect(matchRequirements({ deployment: ['docker'] }, { a: 'x', deployment: 'puppet' })).toEqual({
      ok: false,
      key: 'a',
      required: 'x',
      reason: 'missing',
      offered: [],
    });
    expect(matchRequirements({ deployment: ['docker'] }, { deployment: 'puppet' })).toMatchObject({
      reason: 'mismatch',
      offered: ['docker'],
    });
  });

  it('never lets a template without capabilities satisfy a requirement', () => {
    expect(matchRequirements(undefined, { a: 'b' })).toMatchObject({ ok: false, reason: 'undeclared' });
    expect(matchRequirements({}, { a: 'b' })).toMatchObject({ ok: false, reason: 'undeclared' });
    expect(matchRequirements(undefined, {})).toEqual({ ok: true });
  });

  it('filters like capabilities-find', () => {
    expect(satisfiesFilter({ resource_type: ['OS::A', 'OS::B'] }, { resource_type: 'OS::B' })).toBe(true);
    expect(satisfiesFilter({ resource_type: ['OS::A'] }, { resource_type: 'OS::B' })).toBe(false);
  });
});

describe('path resolution', () => {
  it('joins relative paths, maps absolute prefixes and keeps URLs', () => {
    expect(resolveReference('../a.yaml', 'tht/environments')).toBe('tht/a.yaml');
    expect(
      resolveReference('/usr/share/tht/a.yaml', 'x', { pathMap: { '/usr/share/tht': '/src/tht' } }),
    ).toBe('/src/tht/a.yaml');
    expect(
      resolveReference('/usr/share/tht/a.yaml', 'x', {
        pathMap: { '/usr/share/': '/a/', '/usr/share/tht/': '/b/' },
      }),
    ).toBe('/b/a.yaml');
    expect(resolveReference('http://h/a.yaml', 'x')).toBe('http://h/a.yaml');
    expect(resolveReference('file:///srv/a%20b.yaml', 'x')).toBe('/srv/a b.yaml');
    expect(resolveReference('a.yaml', 'http://h/tht/')).toBe('http://h/tht/a.yaml');
    expect(resolveReference('a.yaml', 'http://h/tht')).toBe('http://h/a.yaml');
  });

  it('reports paths relative to a directory', () => {
    expect(relativeTo('tht/a/b.yaml', 'tht')).toBe('a/b.yaml');
    expect(relativeTo('/x/a.yaml', 'tht')).toBe('/x/a.yaml');
    expect(relativeTo('http://h/a.yaml', 'tht')).toBe('http://h/a.yaml');
  });
});
