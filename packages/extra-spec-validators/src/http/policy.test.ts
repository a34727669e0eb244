import { describe, expect, it } from 'vitest';
import { createNovaExtraSpecsPolicy, NOVA_EXTRA_SPECS_POLICY, type NovaExtraSpecsRule } from './policy.js';

const rule = (action: string) => `os_compute_api:os-flavor-extra-specs:${action}` as NovaExtraSpecsRule;

describe('createNovaExtraSpecsPolicy', () => {
  const shipped = createNovaExtraSpecsPolicy();
  const newDefaults = createNovaExtraSpecsPolicy({ enforceNewDefaults: true });

  it('lets an admin write in any scope and refuses every other role, in both modes', () => {
    for (const policy of [shipped, newDefaults]) {
      for (const action of ['create', 'update', 'delete'] as const) {
        expect(policy(rule(action), { roles: ['admin'], projectId: 'p1' })).toBe(true);
        expect(policy(rule(action), { roles: ['admin'], systemScope: 'all' })).toBe(true);
        expect(policy(rule(action), { roles: ['member', 'reader'], projectId: 'p1' })).toBe(false);
        expect(policy(rule(action), { roles: ['service'], projectId: 'p1' })).toBe(false);
        expect(policy(rule(action), { roles: [] })).toBe(false);
      }
    }
  });

  it('lets any caller of a project read as Nova 26 ships (deprecated rules accepted)', () => {
    for (const action of ['index', 'show'] as const) {
      expect(shipped(rule(action), { roles: ['member'], projectId: 'p1' })).toBe(true);
      expect(shipped(rule(action), { roles: ['other'], projectId: 'p2' })).toBe(true);
      expect(shipped(rule(action), { roles: [], projectId: 'p1' })).toBe(true);
    }
  });

  it('lets only a reader or an admin read under the new defaults', () => {
    for (const action of ['index', 'show'] as const) {
      expect(newDefaults(rule(action), { roles: ['reader'], projectId: 'p1' })).toBe(true);
      expect(newDefaults(rule(action), { roles: ['admin'] })).toBe(true);
      expect(newDefaults(rule(action), { roles: ['member'], projectId: 'p1' })).toBe(false);
      expect(newDefaults(rule(action), { roles: [], projectId: 'p1' })).toBe(false);
    }
  });

  it('has a rule for every action of the API', () => {
    for (const action of ['index', 'show', 'create', 'update', 'delete']) {
      expect(NOVA_EXTRA_SPECS_POLICY[rule(action)]).toBeDefined();
    }
  });
});
