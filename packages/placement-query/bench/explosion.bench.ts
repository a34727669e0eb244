// `pnpm bench explosion`: the allocation candidate explosion, ours against
// OpenStack Placement 8.0 in the same run. One root with C children of 64
// VCPU each and G granular groups of VCPU:1 (group_policy=none): C^G possible
// candidates. For each case, a fresh server process of ours per generation
// strategy (depth-first, breadth-first, each with its default cap of 100,000
// candidates) and a fresh Placement (Debian's python3-placement, SQLite,
// loaded through its API) answer the query without limit and with limit=1;
// each answer is timed to its last byte, and each process's peak memory is
// read from /proc/<pid>/status (VmHWM) after its answers. Placement's answer
// is abandoned (and the process killed) after PLACEMENT_EXPLOSION_TIMEOUT_S
// seconds (default 60).
//
// PLACEMENT_EXPLOSION_CHILDREN (default 8,16,32,64) and
// PLACEMENT_EXPLOSION_GROUPS (default 2,4,6) choose the cases.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchName, report } from '../../../scripts/bench-kit.js';
import { pythonHasModules } from '../../../test-support/python.js';
import { parseInventory } from '../src/model/inventory-file.js';
import { applyPlan, inventoryPlan } from '../src/model/plan.js';
import { httpSend, startOracle } from '../test/support/oracle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const BUILT = join(root, 'dist/bin/stackspec-placement.js');
const SOURCE = join(root, 'src/bin/stackspec-placement.ts');
const useBuilt =
  existsSync(BUILT) && statSync(BUILT).mtimeMs >= statSync(join(root, 'src/engine/candidates.ts')).mtimeMs;
const TSX_LOADER = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;
const CHILDREN = (process.env.PLACEMENT_EXPLOSION_CHILDREN ?? '8,16,32,64').split(',').map(Number);
const GROUPS = (process.env.PLACEMENT_EXPLOSION_GROUPS ?? '2,4,6').split(',').map(Number);
const TIMEOUT_MS = Number(process.env.PLACEMENT_EXPLOSION_TIMEOUT_S ?? 60) * 1000;
const STRATEGIES = ['depth-first', 'breadth-first'] as const;
const HEADERS = { 'openstack-api-version': 'placement 1.39', 'x-auth-token': 'admin' };

const peakMb = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
};

interface Timed {
  ms: number | null;
  candidates: number | null;
}

async function timed(url: string, timeoutMs = TIMEOUT_MS): Promise<Timed> {
  const t = performance.now();
  try {
    const r = await fetch(url, { headers: HEADERS, signal: AbortSignal.timeout(timeoutMs) });
    const body = (await r.json()) as { allocation_requests?: unknown[] };
    return { ms: Math.round(performance.now() - t), candidates: body.allocation_requests?.length ?? null };
  } catch {
    return { ms: null, candidates: null };
  }
}

function query(groups: number, limit?: number): string {
  const parts = ['group_policy=none'];
  for (let g = 1; g <= groups; g += 1) parts.push(`resources${g}=VCPU:1`);
  if (limit) parts.push(`limit=${limit}`);
  return `/allocation_candidates?${parts.join('&')}`;
}

async function ours(file: string, strategy: string): Promise<{ child: ChildProcess; url: string }> {
  const entry = useBuilt ? [BUILT] : ['--conditions=@stackspec/source', '--import', TSX_LOADER, SOURCE];
  const child = spawn(
    process.execPath,
    [
      ...entry,
      'serve',
      '--ephemeral',
      '-i',
      file,
      '--port',
      '0',
      '--allocation-candidates-generation-strategy',
      strategy,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (d) => {
      err += String(d);
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { child, url };
}

const dir = mkdtempSync(join(tmpdir(), 'placement-explosion-bench-'));
const withPlacement = pythonHasModules(['placement.deploy']).ok;
console.log(
  `measuring ${useBuilt ? 'the built package (dist)' : 'the sources'}${withPlacement ? ' and OpenStack Placement 8.0' : ' (Placement not installed: ours only)'}`,
);
const rows: Record<string, unknown>[] = [];
try {
  for (const children of CHILDREN) {
    const file = join(dir, `wide-${children}.json`);
    const tree = {
      providers: [
        {
          name: 'root',
          children: Array.from({ length: children }, (_, i) => ({
            name: `gpu${i}`,
            inventories: { VCPU: 64 },
          })),
        },
      ],
    };
    writeFileSync(file, JSON.stringify(tree));
    for (const groups of GROUPS) {
      const row: Record<string, unknown> = { children, groups, possible: children ** groups };
      for (const strategy of STRATEGIES) {
        const server = await ours(file, strategy);
        try {
          await timed(`${server.url}/`);
          const full = await timed(`${server.url}${query(groups)}`);
          const limited = await timed(`${server.url}${query(groups, 1)}`);
          row[`ours ${strategy}`] = {
            ms: full.ms,
            candidates: full.candidates,
            limit1Ms: limited.ms,
            peakMb: peakMb(server.child.pid as number),
          };
        } finally {
          server.child.kill('SIGKILL');
        }
      }
      if (withPlacement) {
        const oracle = await startOracle();
        try {
          await applyPlan(
            httpSend(oracle.url),
            inventoryPlan(parseInventory(JSON.stringify(tree)).inventory),
          );
          const full = await timed(`${oracle.url}${query(groups)}`);
          // After a timeout Placement is still grinding: skip its limited query.
          const limited =
            full.ms === null
              ? { ms: null, candidates: null }
              : await timed(`${oracle.url}${query(groups, 1)}`);
          row.placement = {
            ms: full.ms,
            candidates: full.candidates,
            limit1Ms: limited.ms,
            peakMb: peakMb(oracle.pid),
          };
        } finally {
          process.kill(oracle.pid, 'SIGKILL');
          await oracle.close();
        }
      }
      console.log(JSON.stringify(row));
      rows.push(row);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
report(benchName(import.meta.url), [], {
  machine: 'see README',
  timeoutSeconds: TIMEOUT_MS / 1000,
  cases: rows,
});
