// Registry lookup against Nova's own: the extra spec catalog Nova loads
// (nova.api.validation.extra_specs.validators, about 490 names, most of them
// patterned) is read from the installed python3-nova, registered in our
// registry, and the same 10,000 keys are resolved by both in the same run.
// Nova resolves a key with a dict lookup, then a linear re.fullmatch scan of
// every validator; ours indexes patterns by their literal ends. The catalog
// grown tenfold with plugin entries shows that our lookup does not slow down
// as the registry grows. Without python3-nova a synthetic catalog of the same
// shape stands in and only our figures are reported.

import { STANDARD_RESOURCE_CLASSES, standardTraits, translatePythonRegex } from '@stackspec/core';
import { benchName, report, runPython, runTasks, seededRandom } from '../../../scripts/bench-kit.js';
import { createNameRegistry } from '../src/name-registry.js';

interface Definition {
  name: string;
  params: Record<string, string>;
}

const NOVA_CATALOG = `
import json
from nova.api.validation.extra_specs import validators
print(json.dumps([
    {'name': v.name, 'params': {p['name']: p['pattern'] for p in v.parameters}}
    for v in validators.VALIDATORS.values()
]))
`;

// Nova's lookup exactly as validators.validate() performs it, without the
// value check that follows; it also returns which validator each key found.
const NOVA_LOOKUP = `
import json, re, sys, time
from nova.api.validation.extra_specs import validators
keys = json.loads(sys.stdin.read())
V = validators.VALIDATORS
def lookup(name):
    if name in V:
        return V[name]
    for v in V.values():
        if re.fullmatch(v.name_regex, name):
            return v
    return None
runs = []
for _ in range(5):
    t = time.perf_counter()
    for k in keys: lookup(k)
    runs.append(time.perf_counter() - t)
runs.sort()
found = [getattr(lookup(k), 'name', None) for k in keys]
print(json.dumps({'ms': runs[len(runs) // 2] * 1000, 'found': found}))
`;

const GROUP = '([a-zA-Z0-9_-]{1,64})?';

/** A stand-in of the same shape when python3-nova is not installed. */
function syntheticCatalog(): Definition[] {
  const out: Definition[] = [];
  const add = (name: string, params: Record<string, string> = {}) => out.push({ name, params });
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
  return out;
}

function registryOf(definitions: readonly Definition[], pluginCopies: number) {
  // Nova's names are regular expressions (a `.` is any character), and so are its parameter patterns.
  const r = createNameRegistry<string>({ literal: 'regex' });
  const params = (p: Record<string, string>) =>
    Object.fromEntries(Object.entries(p).map(([k, v]) => [k, translatePythonRegex(v)]));
  for (const d of definitions) r.add({ name: d.name, value: d.name, params: params(d.params) });
  for (let p = 0; p < pluginCopies; p += 1) {
    for (let k = 0; k < 50; k += 1)
      r.add({ name: `plugin${p}:option_${k}`, value: 'plugin', layer: 'plugin' });
    for (let k = 0; k < 2; k += 1)
      r.add({ name: `plugin${p}:item_${k}.{n}`, value: 'plugin', params: { n: '\\d+' }, layer: 'plugin' });
  }
  return r;
}

/** Half concrete instances of catalog names, a third trait keys, the rest unknown. */
function keys(definitions: readonly Definition[], count: number): string[] {
  const rand = seededRandom(42);
  const traits = [...standardTraits()];
  const fill: Record<string, () => string> = {
    group: () => (rand() < 0.5 ? '' : '_1'),
    key: () => 'ssd',
    filter: () => '',
  };
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const roll = rand();
    if (roll < 0.5) {
      const d = definitions[Math.floor(rand() * definitions.length)] as Definition;
      out.push(d.name.replace(/\{(\w+)\}/g, (_, p: string) => (fill[p] ?? (() => '1'))()));
    } else if (roll < 0.8)
      out.push(`trait${rand() < 0.5 ? '' : '2'}:${traits[Math.floor(rand() * traits.length)]}`);
    else out.push(`hw:unknown_${Math.floor(rand() * 100)}`);
  }
  return out;
}

const nova = runPython(NOVA_CATALOG) as Definition[] | undefined;
const definitions = nova ?? syntheticCatalog();
const small = registryOf(definitions, 0);
const large = registryOf(definitions, Math.round((definitions.length * 9) / 52));
const probe = keys(definitions, 10_000);

const tasks = await runTasks((bench) => {
  bench.add(`lookup 10k keys, ${small.size} ${nova ? 'Nova' : 'synthetic'} entries`, () => {
    for (const k of probe) small.lookup(k);
  });
  bench.add(`lookup 10k keys, ${large.size} entries (tenfold, plugins added)`, () => {
    for (const k of probe) large.lookup(k);
  });
});

const py = nova
  ? (runPython(NOVA_LOOKUP, JSON.stringify(probe)) as { ms: number; found: (string | null)[] } | undefined)
  : undefined;
const [a, b] = tasks;
const oursMs = a?.meanMs ?? 0;
report(benchName(import.meta.url), tasks, {
  catalog: nova
    ? 'nova.api.validation.extra_specs.validators (python3-nova)'
    : 'synthetic (python3-nova missing)',
  entries_small: small.size,
  entries_large: large.size,
  lookups_per_second_small: Math.round((a?.opsPerSecond ?? 0) * 10_000),
  lookups_per_second_large: Math.round((b?.opsPerSecond ?? 0) * 10_000),
  slowdown_tenfold: +((a?.opsPerSecond ?? 0) / (b?.opsPerSecond ?? 1)).toFixed(2),
  ...(py
    ? {
        ours_ms_per_10k: +oursMs.toFixed(2),
        nova_ms_per_10k: +py.ms.toFixed(2),
        speedup_vs_nova: +(py.ms / oursMs).toFixed(1),
        // Both must find the same entry for every key, or the comparison means nothing.
        same_entry_found: `${probe.filter((k, i) => (small.lookup(k)?.entry.name ?? null) === py.found[i]).length} of ${probe.length}`,
      }
    : {}),
});
