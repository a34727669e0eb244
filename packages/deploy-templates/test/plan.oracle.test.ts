// Runs Ironic 21.4's own conductor code (ironic.conductor.steps) on generated
// drivers, templates, traits and user steps, and expects planDeploySteps to
// return the same ordered steps or the same error message.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleAvailable, runPython } from '../../../test-support/python.js';
import {
  type DriverStep,
  ironicProfile,
  type PlanTemplate,
  planDeploySteps,
  type RequestedStep,
} from '../src/index.js';

const SCRIPT = String.raw`
import json, sys, types, warnings
warnings.simplefilter('ignore')
from ironic.conductor import steps as cs

class Iface:
    def __init__(self, steps):
        self._steps = steps
    def get_deploy_steps(self, task):
        return [dict(s) for s in self._steps]

out = []
for case in json.load(sys.stdin):
    driver = types.SimpleNamespace()
    for name in cs.DEPLOYING_INTERFACE_PRIORITY:
        setattr(driver, name, Iface([s for s in case['driver'] if s['interface'] == name]))
    traits = case['traits']
    node = types.SimpleNamespace(uuid='n1', instance_info={'traits': traits},
                                 driver_internal_info={'user_deploy_steps': case['user']})
    task = types.SimpleNamespace(node=node, driver=driver, context=None)
    templates = [types.SimpleNamespace(name=t['name'], steps=t['steps'])
                 for t in case['templates'] if traits and t['name'] in traits]
    cs._get_deployment_templates = lambda task, templates=templates: templates
    try:
        cs.validate_user_deploy_steps_and_templates(task, skip_missing=case['skip'])
        steps = cs._get_all_deployment_steps(task, skip_missing=case['skip'])
        out.append({'ok': [{'interface': s['interface'], 'step': s['step'], 'priority': s['priority'],
                            'args': s.get('args', {})} for s in steps]})
    except Exception as e:
        out.append({'error': str(e)})
print(json.dumps(out))
`;

const IFACES = ['power', 'management', 'deploy', 'bios', 'raid'];
const NAMES = ['a', 'b', 'c', 'deploy'];
const TRAITS = ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C', 'CUSTOM_D'];

const argsinfo = fc.dictionary(
  fc.constantFrom('x', 'y', 'z'),
  fc.record({ required: fc.boolean(), description: fc.constantFrom('', 'desc') }),
  { maxKeys: 2 },
);
const driverArb = fc
  .uniqueArray(
    fc.record({
      interface: fc.constantFrom(...IFACES),
      step: fc.constantFrom(...NAMES),
      priority: fc.constantFrom(0, 0, 10, 50, 50, 100),
      argsinfo,
    }),
    { selector: (s) => `${s.interface}.${s.step}`, maxLength: 8, minLength: 1 },
  )
  .map((steps) =>
    steps.map((s) =>
      s.interface === 'deploy' && s.step === 'deploy' ? { ...s, priority: 100, argsinfo: {} } : s,
    ),
  );
const requested = fc.record({
  interface: fc.constantFrom(...IFACES),
  step: fc.constantFrom(...NAMES, 'missing'),
  args: fc.dictionary(fc.constantFrom('x', 'y', 'w'), fc.integer({ min: 0, max: 3 }), { maxKeys: 2 }),
  priority: fc.constantFrom(0, 10, 50, 60, 100, 200),
});
const caseArb = fc.record({
  driver: driverArb,
  templates: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom(...TRAITS),
      steps: fc.array(requested, { minLength: 1, maxLength: 3 }),
    }),
    { selector: (t) => t.name, maxLength: 4 },
  ),
  traits: fc.subarray(TRAITS),
  user: fc.array(requested, { maxLength: 2 }),
  skip: fc.boolean(),
});

describe.runIf(oracleAvailable('ironic', ['ironic.conductor.steps']))(
  'planDeploySteps agrees with Ironic 21.4',
  () => {
    it('gives the same plan or the same error for generated nodes', () => {
      const cases = fc.sample(caseArb, { numRuns: 700, seed: 1722275 });
      // Ironic asks each interface for its steps in method-name order.
      const canonical = cases.map((c) => ({
        ...c,
        driver: [...c.driver].sort((a, b) => (a.step < b.step ? -1 : a.step > b.step ? 1 : 0)),
      }));
      const theirs = JSON.parse(runPython(SCRIPT, JSON.stringify(canonical))) as {
        ok?: unknown;
        error?: string;
      }[];
      const mismatches: unknown[] = [];
      let errors = 0;
      cases.forEach((c, i) => {
        let got: { ok?: unknown; error?: string };
        try {
          got = {
            ok: planDeploySteps({
              driverSteps: c.driver as DriverStep[],
              templates: c.templates as PlanTemplate[],
              instanceTraits: c.traits,
              userSteps: c.user as RequestedStep[],
              skipMissing: c.skip,
              nodeUuid: 'n1',
              profile: ironicProfile('21.4'),
            }),
          };
        } catch (e) {
          got = { error: (e as Error).message };
          errors += 1;
        }
        const expected = theirs[i];
        // Python joins the names of a set (unexpected arguments, duplicates) in hash order.
        const norm = (x: unknown) =>
          JSON.stringify(x).replace(/(arguments:|steps for) [^;"]*/g, (m) => [...m].sort().join(''));
        // An empty plan is an error for us (Ironic fails later, when the deploy starts).
        if (got.error === 'no steps returned for node n1' && JSON.stringify(expected) === '{"ok":[]}') return;
        if (norm(got) !== norm(expected)) mismatches.push({ case: c, expected, got });
      });
      expect(mismatches.slice(0, 3)).toEqual([]);
      // Both outcomes must be well represented for the comparison to mean something.
      expect(errors).toBeGreaterThan(cases.length / 10);
      expect(errors).toBeLessThan(cases.length * 0.9);
    });
  },
);
