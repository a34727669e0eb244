// Loading and dry-running the 13 current Sahara specs, against Sahara's own
// module measured in the same run; round trips per spec (batched vs Sahara);
// and a real validation over SSH to 127.0.0.1 in both command styles.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchName, report, runPython, runTasks } from '../../../scripts/bench-kit.js';
import { createDryRunRemote } from '../src/adapters/dry-run.js';
import { createSshRemote } from '../src/adapters/ssh.js';
import { loadImageSpec } from '../src/load.js';
import type { ImageSpec } from '../src/spec.js';
import { validateImage } from '../src/validate.js';
import { CORPUS_DIR, corpusFiles, prepareCorpusSpec } from '../test/support/corpus.js';
import { sshdAvailable, startSshd } from '../test/support/sshd.js';

if (!existsSync(CORPUS_DIR)) {
  throw new Error(
    `The Sahara corpus is not at ${CORPUS_DIR}; put the shared folder beside the repository or set STACKSPEC_SHARED.`,
  );
}
const current = corpusFiles().filter((f) => !f.includes('/_history/'));
const prepared = current.map((f) => prepareCorpusSpec(f));
const specs: ImageSpec[] = prepared.map((p) => loadImageSpec(p.spec));

const PYTHON = `
import json, sys, time, warnings
warnings.simplefilter('ignore')
import yaml
from sahara.plugins import images
from sahara import exceptions as ex
req = json.load(sys.stdin)
sys.path.insert(0, req['packageRoot'])
vmap = images.SaharaImageValidator.get_validator_map()
texts = [yaml.safe_load(open(p).read()) for p in req['specs']]
class Remote(object):
    def __init__(self): self.calls = 0
    def get_os_distrib(self): self.calls += 1; return 'centos'
    def execute_command(self, cmd, run_as_root=False, **kw): self.calls += 1; return 0, ''
    def write_file_to(self, path, data, run_as_root=False, **kw): self.calls += 1
def load_all():
    return [images.SaharaImageValidator.from_spec(t, vmap, ['res'], 'benchpkg%d' % i) for i, t in enumerate(texts)]
validators = load_all()
n = 0; t0 = time.perf_counter()
while time.perf_counter() - t0 < 1.0:
    load_all(); n += 1
load_ms = (time.perf_counter() - t0) / n * 1000
m = 0; t0 = time.perf_counter()
while time.perf_counter() - t0 < 1.0:
    for v in validators:
        v.validate(Remote(), test_only=False, image_arguments={})
    m += 1
run_ms = (time.perf_counter() - t0) / m * 1000
print(json.dumps({'loadAllMs': load_ms, 'validateAllMs': run_ms}))
`;

function pythonSide(): { loadAllMs: number; validateAllMs: number } | undefined {
  // Sahara resolves scripts inside a Python package: give each spec one.
  const root = mkdtempSync(join(tmpdir(), 'siv-bench-py-'));
  prepared.forEach((p, i) => {
    const pkg = join(root, `benchpkg${i}`);
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, '__init__.py'), '');
    cpSync(p.root, join(pkg, 'res'), { recursive: true });
  });
  return runPython(PYTHON, JSON.stringify({ packageRoot: root, specs: prepared.map((p) => p.spec) })) as
    | { loadAllMs: number; validateAllMs: number }
    | undefined;
}

const tasks = await runTasks((bench) => {
  bench.add(`load the ${specs.length} current corpus specs`, () => {
    for (const p of prepared) loadImageSpec(p.spec);
  });
  for (const mode of ['batched', 'sahara'] as const) {
    bench.add(`dry-run all ${specs.length} (centos, fix, ${mode})`, async () => {
      for (const spec of specs) await validateImage(spec, createDryRunRemote({ distro: 'centos' }), { mode });
    });
  }
});

const roundTrips: Record<string, { sahara: number; batched: number }> = {};
for (const [i, spec] of specs.entries()) {
  const name = (prepared[i]?.name ?? '').replace(/\/resources\/images\/image\.yaml$/, '');
  const full = { installed: [...collect(spec)] };
  const sahara = await validateImage(spec, createDryRunRemote({ distro: 'centos', machine: full }), {
    mode: 'sahara',
    reconcile: false,
  });
  const batched = await validateImage(spec, createDryRunRemote({ distro: 'centos', machine: full }), {
    reconcile: false,
  });
  roundTrips[name] = { sahara: sahara.commandCount, batched: batched.commandCount };
}

function collect(spec: ImageSpec): Set<string> {
  const out = new Set<string>();
  const walk = (nodes: ImageSpec['validators']) => {
    for (const n of nodes) {
      if (n.kind === 'package')
        for (const p of n.packages) out.add(p.version ? `${p.name}-${p.version}` : p.name);
      if (n.kind === 'all' || n.kind === 'any') walk(n.validators);
      if (n.kind === 'os_case' || n.kind === 'argument_case') for (const c of n.cases) walk(c.validators);
    }
  };
  walk(spec.validators);
  return out;
}

// Over SSH the round trips are what costs: a spec of 40 package checks and 5 scripts on this machine.
let ssh: Record<string, number> | undefined;
if (sshdAvailable().ok && process.getuid?.() === 0) {
  const sshd = await startSshd();
  const installed = readFileSync('/var/lib/dpkg/status', 'utf8')
    .split('\n\n')
    .filter((b) => /^Status: install ok installed$/m.test(b))
    .map((b) => /^Package: (\S+)/m.exec(b)?.[1])
    .filter((x): x is string => Boolean(x))
    .slice(0, 40);
  const text = [
    'validators:',
    ...installed.map((p) => `  - package: ${p}`),
    ...[1, 2, 3, 4, 5].map((i) => `  - script: {s${i}: {inline: "true"}}`),
    '',
  ].join('\n');
  const spec = loadImageSpec(text);
  ssh = {};
  for (const mode of ['sahara', 'batched'] as const) {
    const remote = createSshRemote({
      host: '127.0.0.1',
      port: sshd.port,
      username: sshd.username,
      privateKeyPath: sshd.clientKeyPath,
      knownHostsFile: sshd.knownHosts,
    });
    await remote.exec('true');
    const start = process.hrtime.bigint();
    const r = await validateImage(spec, remote, { mode, reconcile: false, families: { debian: 'debian' } });
    ssh[`${mode}Ms`] = Math.round(Number(process.hrtime.bigint() - start) / 1e6);
    ssh[`${mode}RoundTrips`] = r.commandCount;
    if (!r.ok) throw new Error(`ssh ${mode} run failed: ${r.failure?.message}`);
    await remote.close();
  }
  await sshd.stop();
}

const python = pythonSide();
const totals = Object.values(roundTrips).reduce(
  (a, b) => ({ sahara: a.sahara + b.sahara, batched: a.batched + b.batched }),
  {
    sahara: 0,
    batched: 0,
  },
);
report(benchName(import.meta.url), tasks, {
  corpus: CORPUS_DIR,
  roundTripsCheckModeCentosAllInstalled: roundTrips,
  roundTripsTotal: totals,
  ...(ssh ? { sshLocalhost40Packages5Scripts: ssh } : {}),
  ...(python ? { saharaPython: python } : {}),
});
