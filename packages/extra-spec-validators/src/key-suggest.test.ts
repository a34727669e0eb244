import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineExtraSpec } from './define.js';
import { createExtraSpecRegistry, internals } from './registry.js';

const zed = internals(createExtraSpecRegistry({ release: 'zed' }));
const newest = internals(
  createExtraSpecRegistry({
    plugins: [
      {
        name: 'vendor',
        specs: [
          defineExtraSpec({
            name: 'acme:speed',
            description: 'Clock speed.',
            value: { type: 'int', min: 1 },
          }),
          defineExtraSpec({
            name: 'acme:port{n}_mode',
            description: 'Mode of port n.',
            parameters: [{ name: 'n', pattern: '\\d+', description: 'Port number.' }],
            value: { type: 'str', enum: ['fast', 'slow'] },
          }),
        ],
      },
    ],
  }),
);
const names = [...zed.entries(), ...newest.entries()].map((e) => e.name);

/** A key a few typing mistakes away from a registered name (placeholders filled or left). */
const typo = fc
  .tuple(
    fc.constantFrom(...names),
    fc.array(
      fc.tuple(
        fc.constantFrom('drop', 'insert', 'swap', 'replace', 'upper'),
        fc.nat(),
        fc.constantFrom('a', 'x', '_', ':', '1', 'Q', '.'),
      ),
      { maxLength: 4 },
    ),
    fc.constantFrom('', '1', 'abc', '_x'),
  )
  .map(([name, edits, fillIn]) => {
    let key = name.replace(/\{[^}]*\}/g, fillIn);
    for (const [kind, at, ch] of edits) {
      const i = key.length ? at % key.length : 0;
      if (kind === 'drop') key = key.slice(0, i) + key.slice(i + 1);
      else if (kind === 'insert') key = key.slice(0, i) + ch + key.slice(i);
      else if (kind === 'replace') key = key.slice(0, i) + ch + key.slice(i + 1);
      else if (kind === 'upper') key = key.slice(0, i) + key.slice(i, i + 1).toUpperCase() + key.slice(i + 1);
      else if (i + 1 < key.length) key = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
    }
    return key;
  });

describe('unknown-key suggestions', () => {
  it('are what comparing the key with every name of the close namespaces gives', () => {
    fc.assert(
      fc.property(typo, fc.integer({ min: 1, max: 5 }), (key, limit) => {
        expect(zed.suggest(key, limit)).toEqual(zed.suggestByScan(key, limit));
        expect(newest.suggest(key, limit)).toEqual(newest.suggestByScan(key, limit));
      }),
      { numRuns: 1500 },
    );
  });

  it('agree with the scan on arbitrary text, keys outside ASCII included', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (key) => {
        expect(zed.suggest(key)).toEqual(zed.suggestByScan(key, 3));
      }),
      { numRuns: 500 },
    );
  });

  it('name the intended key for common typos, filled in with the key’s own values', () => {
    expect(zed.suggest('hw:cpu_polcy')).toContain('hw:cpu_policy');
    expect(zed.suggest('hw:numa_cpu.1')).toContain('hw:numa_cpus.1');
    expect(zed.suggest('trait:HW_CPU_X86_AVX3')[0]).toMatch(/^trait:HW_CPU_X86_AVX/);
    expect(newest.suggest('acme:port2_mod')).toEqual(['acme:port2_mode']);
    expect(zed.suggest('nothing:close_at_all_here')).toEqual([]);
  });
});
