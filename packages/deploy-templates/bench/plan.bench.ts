// The deploy-step plan for a node whose instance traits match 100 templates
// of 20 steps each (2000 requested steps against a driver reporting 2100),
// compared with Ironic 21.4's own conductor code on the same input in the
// same run.
import { benchName, report, runPython, runTasks, seededRandom } from '../../../scripts/bench-kit.js';
import { type DriverStep, ironicProfile, type PlanTemplate, planDeploySteps } from '../src/index.js';

const random = seededRandom(1722275);
const IFACES = ['power', 'management', 'deploy', 'bios', 'raid'];
const driverSteps: DriverStep[] = [{ interface: 'deploy', step: 'deploy', priority: 100 }];
for (let i = 0; i < 2100; i += 1) {
  driverSteps.push({
    interface: IFACES[i % IFACES.length] as string,
    step: `step_${i}`,
    priority: random() < 0.3 ? Math.floor(random() * 100) : 0,
    argsinfo: { level: { required: random() < 0.5, description: 'level' }, force: { required: false } },
  });
}
const templates: PlanTemplate[] = [];
for (let t = 0; t < 100; t += 1) {
  templates.push({
    name: `CUSTOM_T${t}`,
    steps: Array.from({ length: 20 }, (_, s) => {
      const d = driverSteps[1 + t * 20 + s] as DriverStep;
      return {
        interface: d.interface,
        step: d.step,
        args: { level: s, force: true },
        priority: Math.floor(random() * 200),
      };
    }),
  });
}
const instanceTraits = templates.map((t) => t.name);
const profile = ironicProfile('21.4');
const input = { driverSteps, templates, instanceTraits, profile };
const planned = planDeploySteps(input);

const tasks = await runTasks((bench) => {
  bench.add('planDeploySteps: 100 templates x 20 steps', () => {
    planDeploySteps(input);
  });
  bench.add('planDeploySteps: no matching template (driver steps only)', () => {
    planDeploySteps({ ...input, instanceTraits: [] });
  });
});

const python = runPython(
  String.raw`
import json, sys, time, types, warnings
warnings.simplefilter('ignore')
from ironic.conductor import steps as cs
data = json.load(sys.stdin)
class Iface:
    def __init__(self, steps): self._steps = steps
    def get_deploy_steps(self, task): return [dict(s) for s in self._steps]
driver = types.SimpleNamespace()
ordered = sorted(data['driver'], key=lambda s: s['step'])
for name in cs.DEPLOYING_INTERFACE_PRIORITY:
    setattr(driver, name, Iface([s for s in ordered if s['interface'] == name]))
node = types.SimpleNamespace(uuid='n', instance_info={'traits': data['traits']}, driver_internal_info={})
task = types.SimpleNamespace(node=node, driver=driver, context=None)
templates = [types.SimpleNamespace(name=t['name'], steps=t['steps']) for t in data['templates']]
cs._get_deployment_templates = lambda task: templates
n = 0
start = time.perf_counter()
while time.perf_counter() - start < 2:
    result = cs._get_all_deployment_steps(task)
    n += 1
elapsed = time.perf_counter() - start
print(json.dumps({'opsPerSecond': n / elapsed, 'meanMs': elapsed / n * 1000, 'steps': len(result)}))
`,
  JSON.stringify({ driver: driverSteps, templates, traits: instanceTraits }),
);

report(benchName(import.meta.url), tasks, {
  plannedSteps: planned.length,
  ironic21_4Conductor: python ?? 'unavailable',
});
