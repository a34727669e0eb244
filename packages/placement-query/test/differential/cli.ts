// `pnpm test:differential [--seeds N] [--first S] [--nodes M] [--queries Q] [--writes W] [--json FILE]`
//
// Differential testing against OpenStack Placement 8.0 on generated clouds
// (see harness.ts): N seeds starting at S, clouds of M compute nodes, Q
// queries and W writes per seed. Prints one line per seed and every
// unexplained difference; exits 1 if there is any.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pythonHasModules } from '../../../../test-support/python.js';
import { intendedDifferences, runDifferential } from './harness.js';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '3' },
    first: { type: 'string', default: '1' },
    nodes: { type: 'string', default: '100' },
    queries: { type: 'string', default: '500' },
    writes: { type: 'string', default: '60' },
    json: { type: 'string' },
  },
});
const positive = (name: string, text: string | undefined): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} needs a whole number, not ${JSON.stringify(text)}.`);
    process.exit(2);
  }
  return n;
};
const seedCount = positive('seeds', values.seeds);
const first = positive('first', values.first);
const check = pythonHasModules(['placement.deploy']);
if (!check.ok) {
  console.error(
    `OpenStack Placement is not importable by /usr/bin/python3 (${check.reason}); apt-get install python3-placement.`,
  );
  process.exit(2);
}
const intended = intendedDifferences();
const started = performance.now();
const reports = await runDifferential({
  seeds: Array.from({ length: seedCount }, (_, i) => first + i),
  nodes: positive('nodes', values.nodes),
  queries: positive('queries', values.queries),
  writes: positive('writes', values.writes),
  intended,
  log: (line) => console.log(line),
});
const unexplained = reports.flatMap((r) => r.unexplained);
const total = (k: 'queries' | 'writes' | 'providers') => reports.reduce((n, r) => n + r[k], 0);
const tally: Record<string, number> = {};
for (const r of reports) for (const [k, n] of Object.entries(r.tally)) tally[k] = (tally[k] ?? 0) + n;
for (const u of unexplained) console.log(`\nUNEXPLAINED ${u}`);
console.log(
  `\n${reports.length} seeds, ${total('providers')} providers, ${total('queries')} queries, ${total('writes')} writes in ${((performance.now() - started) / 1000).toFixed(0)} s: ${unexplained.length} unexplained differences`,
);
console.log(JSON.stringify(tally));
if (values.json) writeFileSync(values.json, `${JSON.stringify({ reports, tally }, null, 2)}\n`);
process.exit(unexplained.length ? 1 : 0);
