// Differential testing against OpenStack Placement 8.0 on generated clouds
// (harness.ts): a few small fixed seeds on every CI run. Each builds a cloud
// with flat, NUMA and wide trees, sharing providers, odd inventories and
// usages near capacity, loads it through the REST API into Placement and
// our server, and compares every answer to generated queries and writes in
// full. Larger runs: `pnpm test:differential --seeds N --nodes M`.
import { describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../../test-support/python.js';
import { intendedDifferences, runSeed } from './harness.js';

const SEEDS = [101, 102];

describe.runIf(oracleAvailable('placement', ['placement.deploy']))(
  'differential testing against OpenStack Placement 8.0',
  () => {
    const intended = intendedDifferences();
    for (const seed of SEEDS) {
      it(`seed ${seed}: every answer matches or differs only as documented`, async () => {
        const report = await runSeed(seed, { seeds: [seed], nodes: 12, queries: 250, writes: 50, intended });
        console.log(`differential seed ${seed}:`, JSON.stringify(report.tally));
        expect(report.unexplained).toEqual([]);
        // The generator must keep reaching the interesting answers.
        expect(report.tally.candidates ?? 0).toBeGreaterThan(40);
        expect(report.tally['status 400'] ?? 0).toBeGreaterThan(10);
        expect(report.tally['write same'] ?? 0).toBeGreaterThan(40);
      }, 300_000);
    }
  },
);
