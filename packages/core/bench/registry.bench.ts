// Registry lookup: a Nova-sized catalog (about 525 names, most of them
// patterned) and the same catalog grown tenfold with plugin entries. The
// indexed lookup must not slow down as the registry grows. Compared with a
// linear scan of compiled patterns, which is how Nova resolves a key.
import { benchName, report, runTasks, seededRandom } from '../../../scripts/bench-kit.js';
import { createNameRegistry, STANDARD_RESOURCE_CLASSES, standardTraits } from '../src/index.js';

const GROUP = '([a-zA-Z0-9_-]{1,64})?';

function catalog(pluginCopies: number) {
  const r = createNameRegistry<number>({ literal: 'regex' });
  const names: string[] = [];
  let i = 0;
  const add = (name: string, params?: Record<string, string>) => {
    r.add({ name, value: i++, ...(params ? { params } : {}) });
    names.push(name);
  };
  for (const n of [
    'cpu_policy',
    'cpu_thread_policy',
    'mem_page_size',
    'numa_nodes',
    'cpu_sockets',
    'cpu_cores',
  ])
    add(`hw:${n}`);
  for (let q = 0; q < 31; q += 1) add(`quota:limit_${q}`);
  for (let c = 0; c < 34; c += 1) add(`capabilities:field_${c}`);
  add('hw:numa_cpus.{num}', { num: '\\d+' });
  add('hw:numa_mem.{num}', { num: '\\d+' });
  add('aggregate_instance_extra_specs:{key}', { key: '.+' });
  for (const rc of STANDARD_RESOURCE_CLASSES) add(`resources{group}:${rc}`, { group: GROUP });
  add('resources{group}:CUSTOM_{rc}', { group: GROUP, rc: '[A-Z0-9_]+' });
  for (const t of standardTraits()) add(`trait{group}:${t}`, { group: GROUP });
  add('trait{group}:CUSTOM_{t}', { group: GROUP, t: '[A-Z0-9_]+' });
  for (let p = 0; p < pluginCopies; p += 1) {
    for (let k = 0; k < 50; k += 1) add(`plugin${p}:option_${k}`);
    for (let k = 0; k < 2; k += 1) add(`plugin${p}:item_${k}.{n}`, { n: '\\d+' });
  }
  return { registry: r, names };
}

function keys(names: string[], count: number): string[] {
  const rand = seededRandom(42);
  const pick = () => names[Math.floor(rand() * names.length)] as string;
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const roll = rand();
    const name = pick();
    if (roll < 0.5)
      out.push(
        name
          .replace('{num}', '3')
          .replace('{n}', '1')
          .replace('{group}', rand() < 0.5 ? '' : '1')
          .replace('{key}', 'k')
          .replace('CUSTOM_{rc}', 'CUSTOM_GPU')
          .replace('CUSTOM_{t}', 'CUSTOM_X'),
      );
    else if (roll < 0.8)
      out.push(`trait${rand() < 0.5 ? '' : '2'}:${[...standardTraits()][Math.floor(rand() * 377)]}`);
    else out.push(`hw:unknown_${Math.floor(rand() * 100)}`);
  }
  return out;
}

const small = catalog(0);
const large = catalog(Math.round((small.names.length * 9) / 52));
const probe = keys(small.names, 10_000);
const linear = small.names.map((n) => n); // for the scan baseline
const scanRegexes = small.registry.entries().map((e) => e.pattern.regex);

const tasks = await runTasks((bench) => {
  bench.add(`lookup 10k keys, ${small.registry.size} entries`, () => {
    for (const k of probe) small.registry.lookup(k);
  });
  bench.add(`lookup 10k keys, ${large.registry.size} entries (tenfold)`, () => {
    for (const k of probe) large.registry.lookup(k);
  });
  bench.add(`linear scan 10k keys, ${linear.length} patterns (baseline)`, () => {
    for (const k of probe) scanRegexes.find((re) => re.test(k));
  });
});

const [a, b, c] = tasks;
report(benchName(import.meta.url), tasks, {
  entries_small: small.registry.size,
  entries_large: large.registry.size,
  lookups_per_second_small: Math.round((a?.opsPerSecond ?? 0) * 10_000),
  lookups_per_second_large: Math.round((b?.opsPerSecond ?? 0) * 10_000),
  slowdown_tenfold: +((a?.opsPerSecond ?? 0) / (b?.opsPerSecond ?? 1)).toFixed(2),
  speedup_vs_linear_scan: +((a?.opsPerSecond ?? 0) / (c?.opsPerSecond ?? 1)).toFixed(1),
});
