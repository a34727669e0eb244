import { describe, expect, it } from 'vitest';
import {
  createPlacementPolicy,
  PLACEMENT_JSON_ROUTES,
  PLACEMENT_POLICY,
  PLACEMENT_ROUTE_RULES,
} from './policy.js';

const target = { project_id: null };

describe('createPlacementPolicy as Placement 8.0 ships it', () => {
  const policy = createPlacementPolicy();
  const write = 'placement:resource_providers:create';

  it('lets an admin in any scope write, as Nova’s service user does, and nobody else', () => {
    expect(policy(write, { roles: ['admin'], projectId: 'service' }, { project_id: 'service' })).toBe(true);
    expect(policy(write, { roles: ['admin'], systemScope: 'all' }, target)).toBe(true);
    expect(policy(write, { roles: ['member', 'reader'], projectId: 'p1' }, target)).toBe(false);
    expect(policy(write, { roles: ['reader'], systemScope: 'all' }, target)).toBe(false);
    expect(policy(write, { roles: ['service'], projectId: 'service' }, target)).toBe(false);
    expect(policy(write, { roles: [] }, target)).toBe(false);
  });

  it('lets a system reader or any admin read, and not a project reader', () => {
    const read = 'placement:allocation_candidates:list';
    expect(policy(read, { roles: ['reader'], systemScope: 'all' }, target)).toBe(true);
    expect(policy(read, { roles: ['admin'], projectId: 'p1' }, target)).toBe(true);
    expect(policy(read, { roles: ['member', 'reader'], projectId: 'p1' }, target)).toBe(false);
    expect(policy(read, { roles: [] }, target)).toBe(false);
  });

  it('lets a project reader see the usages of its own project', () => {
    const reader = { roles: ['reader'], projectId: 'p1' };
    expect(policy('placement:usages', reader, { project_id: 'p1' })).toBe(true);
    expect(policy('placement:usages', reader, { project_id: 'p2' })).toBe(false);
  });
});

describe('createPlacementPolicy with enforceNewDefaults', () => {
  const policy = createPlacementPolicy({ enforceNewDefaults: true });

  it('lets a system-scoped admin write and nobody else', () => {
    const rule = 'placement:resource_providers:create';
    expect(policy(rule, { roles: ['admin'], systemScope: 'all' }, target)).toBe(true);
    expect(policy(rule, { roles: ['admin'], projectId: 'p1' }, { project_id: 'p1' })).toBe(false);
    expect(policy(rule, { roles: ['reader'], systemScope: 'all' }, target)).toBe(false);
    expect(policy(rule, { roles: [] }, target)).toBe(false);
  });

  it('lets a system-scoped reader read, and no project-scoped token', () => {
    const read = 'placement:allocation_candidates:list';
    expect(policy(read, { roles: ['reader'], systemScope: 'all' }, target)).toBe(true);
    expect(policy(read, { roles: ['reader'], projectId: 'p1' }, target)).toBe(false);
    expect(policy(read, { roles: ['admin', 'member', 'reader'], projectId: 'p1' }, target)).toBe(false);
  });

  it('lets a project reader see the usages of its own project', () => {
    const reader = { roles: ['reader'], projectId: 'p1' };
    expect(policy('placement:usages', reader, { project_id: 'p1' })).toBe(true);
    expect(policy('placement:usages', reader, { project_id: 'p2' })).toBe(false);
  });
});

describe('PLACEMENT_ROUTE_RULES', () => {
  it('names only rules the table defines, and JSON routes it guards', () => {
    for (const rule of Object.values(PLACEMENT_ROUTE_RULES)) expect(PLACEMENT_POLICY[rule]).toBeDefined();
    for (const route of PLACEMENT_JSON_ROUTES) expect(PLACEMENT_ROUTE_RULES[route]).toBeDefined();
  });
});
