// Shared harness for `pnpm bench`: every packages/*/bench/*.bench.ts imports it.
// It runs tinybench tasks, prints a table, and writes
// bench-results/<package>.<bench>.json with ops/s, mean, p50, p99 and samples per
// task plus any extra figures (such as the Python original's numbers measured
// in the same run).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench, type BenchOptions } from 'tinybench';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface TaskFigures {
  name: string;
  opsPerSecond: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  samples: number;
}

export interface BenchReport {
  name: string;
  node: string;
  date: string;
  tasks: TaskFigures[];
  extra: Record<string, unknown>;
}

/** Small deterministic PRNG (mulberry32, shared with the tests) so inputs are the same on every run. */
export { mulberry32 as seededRandom } from '../test-support/random.js';

/** `<package>.<bench>` from a bench file path, e.g. `core.yaml`. */
export function benchName(fileUrl: string): string {
  const file = fileURLToPath(fileUrl);
  const pkg = basename(resolve(dirname(file), '..'));
  return `${pkg}.${basename(file).replace(/\.bench\.ts$/, '')}`;
}

/** Runs tinybench tasks and returns their figures. */
export async function runTasks(
  define: (bench: Bench) => void,
  options: BenchOptions = { time: 1000, warmupTime: 200 },
): Promise<TaskFigures[]> {
  const bench = new Bench(options);
  define(bench);
  await bench.run();
  return bench.tasks.map((t) => {
    const r = t.result as unknown as {
      throughput?: { mean: number };
      latency?: { mean: number; p50?: number; p99?: number; samples?: number[]; samplesCount?: number };
    };
    const latency = r.latency;
    return {
      name: t.name,
      opsPerSecond: r.throughput?.mean ?? 0,
      meanMs: latency?.mean ?? 0,
      p50Ms: latency?.p50 ?? 0,
      p99Ms: latency?.p99 ?? 0,
      samples: latency?.samplesCount ?? latency?.samples?.length ?? 0,
    };
  });
}

/** Prints a table of figures and writes the JSON report. */
export function report(name: string, tasks: TaskFigures[], extra: Record<string, unknown> = {}): BenchReport {
  const out: BenchReport = { name, node: process.version, date: new Date().toISOString(), tasks, extra };
  if (tasks.length) {
    console.log(`\n${name}`);
    console.table(
      tasks.map((t) => ({
        task: t.name,
        'ops/s': Math.round(t.opsPerSecond).toLocaleString('en-US'),
        'mean ms': t.meanMs.toFixed(4),
        'p50 ms': t.p50Ms.toFixed(4),
        'p99 ms': t.p99Ms.toFixed(4),
        samples: t.samples,
      })),
    );
  }
  for (const [k, v] of Object.entries(extra))
    console.log(`  ${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(out, null, 2)}\n`);
  return out;
}

/**
 * Runs a Python script with Debian's interpreter (`/usr/bin/python3`, which
 * sees the apt-installed OpenStack packages) and parses its JSON stdout.
 * Returns `undefined` with a printed reason when Python or the module is
 * missing, so benchmarks still report our own figures.
 */
export function runPython(script: string, input = '', timeoutMs = 600_000): unknown {
  const r = spawnSync('/usr/bin/python3', ['-c', script], {
    input,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: timeoutMs,
  });
  if (r.error || r.status !== 0) {
    console.log(
      `  (python comparison unavailable: ${r.error?.message ?? r.stderr.trim().split('\n').pop()})`,
    );
    return undefined;
  }
  try {
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? 'null');
  } catch {
    console.log('  (python comparison printed no JSON)');
    return undefined;
  }
}
