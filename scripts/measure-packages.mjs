// What a user pays for each package: packs them all (after `pnpm build`),
// installs each one alone with plain npm into an empty project outside the
// workspace (its @stackspec dependencies from their tarballs, everything else
// from the registry, zod as npm installs a peer), and measures
//
//   - install size: `du -sk node_modules`, and the number of packages in it;
//   - cold import time of the main entry: a fresh `node` process per run,
//     the time `await import('<package>')` takes in it (Node's own start-up
//     excluded), over several runs: the median and the fastest.
//
//   node scripts/measure-packages.mjs [--runs N] [--write]
//
// --write puts each package's figures into its README, between the
// `<!-- measure-packages:start -->` and `<!-- measure-packages:end -->` lines.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { installProject, packAll, packedManifest, readPackages, run, tempDir } from './lib/tarballs.mjs';

const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 7;
const WRITE = argv.includes('--write');
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs takes a whole number, 1 or more.');

const work = tempDir('measure');
const packages = readPackages();
const tarballs = packAll(join(work, 'tarballs'), packages);
const manifests = new Map([...tarballs].map(([name, file]) => [name, packedManifest(file)]));

/** The package's tarball and those of the @stackspec packages it needs, transitively. */
function tarballsFor(name, seen = new Set()) {
  if (seen.has(name)) return [];
  seen.add(name);
  const deps = Object.keys(manifests.get(name)?.dependencies ?? {}).filter((d) => manifests.has(d));
  return [tarballs.get(name), ...deps.flatMap((d) => tarballsFor(d, seen))];
}

/** Installed packages in a node_modules folder (scoped ones counted one by one). */
function countPackages(dir) {
  let n = 0;
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith('.')) continue;
    n += entry.startsWith('@') ? readdirSync(join(dir, entry)).length : 1;
  }
  return n;
}

/** `text` cut into lines of at most `width` characters, at spaces. */
function wrap(text, width) {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const rows = [];
const loads = [];
for (const p of packages) {
  const project = join(work, p.name.split('/').pop());
  mkdirSync(project);
  installProject(project, tarballsFor(p.name));
  const kib = Number(run('du', ['-sk', 'node_modules'], { cwd: project }).stdout.split('\t')[0]);
  const count = countPackages(join(project, 'node_modules'));
  const code = `const t = performance.now(); await import(${JSON.stringify(p.name)}); console.log(performance.now() - t);`;
  loads.push(loadavg()[0]);
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      cwd: project,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`importing ${p.name} failed:\n${r.stderr}`);
    times.push(Number(r.stdout.trim()));
  }
  rows.push({ name: p.name, mb: kib / 1024, count, median: median(times), min: Math.min(...times) });
  console.error(`measured ${p.name}`);
}
rmSync(work, { recursive: true, force: true });
const loadAvg = loads.reduce((a, b) => a + b, 0) / loads.length;

const machine =
  `Node ${process.versions.node}, npm ${run('npm', ['--version']).stdout.trim()}, ` +
  `${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), load average ${loadAvg.toFixed(1)} while measuring`;
const date = new Date().toISOString().slice(0, 10);
const fmt = (ms) => `${Math.round(ms)} ms`;
console.log(`\nMeasured ${date} on ${machine}; import times over ${RUNS} runs.\n`);
console.log(
  '| package | install size (`du -sk node_modules`) | packages installed | cold import of the main entry (median, fastest) |',
);
console.log('| --- | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(`| \`${r.name}\` | ${r.mb.toFixed(1)} MB | ${r.count} | ${fmt(r.median)}, ${fmt(r.min)} |`);
}

if (WRITE) {
  for (const r of rows) {
    const p = packages.find((x) => x.name === r.name);
    const readme = join(p.dir, 'README.md');
    const text = readFileSync(readme, 'utf8');
    const start = '<!-- measure-packages:start -->';
    const end = '<!-- measure-packages:end -->';
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from < 0 || to < from) {
      console.error(`${readme} has no ${start} … ${end} block; left as it is`);
      continue;
    }
    const lead =
      `**Install size and cold import**, measured by \`node scripts/measure-packages.mjs --write\` (which wrote ` +
      'this block): the packed tarball installed alone with npm into an empty project (zod as npm installs ' +
      `the peer), then \`await import('${r.name}')\` timed in a fresh \`node\` process, ${RUNS} times. ` +
      `${date}, ${machine}: treat the times as orders of magnitude.`;
    const block = [
      start,
      ...wrap(lead, 110),
      '',
      '| install size (`du -sk node_modules`) | packages installed | cold import of the main entry (median, fastest) |',
      '| ---: | ---: | ---: |',
      `| ${r.mb.toFixed(1)} MB | ${r.count} | ${fmt(r.median)}, ${fmt(r.min)} |`,
      end,
    ].join('\n');
    writeFileSync(readme, text.slice(0, from) + block + text.slice(to + end.length));
    console.error(`wrote ${readme}`);
  }
}
