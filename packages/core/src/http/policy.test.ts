import { describe, expect, it } from 'vitest';
import { isStackspecError } from '../errors.js';
import { createPolicyEnforcer, credentialsFromHeaders, credentialsHook } from './policy.js';

describe('credentialsFromHeaders', () => {
  it('reads roles, scope, project, domain and user as keystonemiddleware names them', () => {
    const h = new Headers({
      'X-Roles': ' admin , reader,',
      'OpenStack-System-Scope': 'all',
      'X-Project-Id': 'p1',
      'X-Project-Name': 'demo',
      'X-Project-Domain-Id': 'default',
      'X-User-Id': 'u1',
    });
    expect(credentialsFromHeaders(h)).toEqual({
      roles: ['admin', 'reader'],
      systemScope: 'all',
      projectId: 'p1',
      projectName: 'demo',
      projectDomainId: 'default',
      userId: 'u1',
    });
  });

  it('gives no roles and nothing else without headers', () => {
    expect(credentialsFromHeaders(new Headers())).toEqual({ roles: [] });
  });
});

describe('createPolicyEnforcer', () => {
  const enforce = createPolicyEnforcer({
    admin: 'role:admin',
    system_admin: { check: 'role:admin and system_scope:all', deprecated: 'rule:admin' },
    project_reader: 'role:reader and project_id:%(project_id)s',
    'svc:read': 'rule:system_admin or (role:reader and system_scope:all) or rule:project_reader',
    'svc:write': 'rule:system_admin',
    anyone: '@',
    nobody: '!',
    empty: '',
    'not-member': 'not role:member',
    named: 'project_name:%(service_project)s and role:service',
  });

  it('lets only a system-scoped admin write under the new defaults', () => {
    expect(enforce('svc:write', { roles: ['admin'], systemScope: 'all' })).toBe(true);
    expect(enforce('svc:write', { roles: ['admin'], projectId: 'p' })).toBe(false);
    expect(enforce('svc:write', { roles: ['reader', 'member'], systemScope: 'all' })).toBe(false);
    expect(enforce('svc:write', { roles: [] })).toBe(false);
  });

  it('compares roles without regard to case', () => {
    expect(enforce('admin', { roles: ['Admin'] })).toBe(true);
  });

  it('accepts deprecated checks only in legacy mode', () => {
    const legacy = createPolicyEnforcer(
      { admin: 'role:admin', w: { check: 'role:admin and system_scope:all', deprecated: 'rule:admin' } },
      { legacy: true },
    );
    expect(legacy('w', { roles: ['admin'], projectId: 'p' })).toBe(true);
    expect(legacy('w', { roles: ['member'], projectId: 'p' })).toBe(false);
  });

  it('fills %(name)s from the target, reading an unset credential as None', () => {
    const reader = { roles: ['reader'], projectId: 'p1' };
    expect(enforce('project_reader', reader, { project_id: 'p1' })).toBe(true);
    expect(enforce('project_reader', reader, { project_id: 'p2' })).toBe(false);
    // A target without the name fails the check.
    expect(enforce('project_reader', reader)).toBe(false);
    // Python formats None as "None", and an unset project reads "None" too.
    expect(enforce('project_reader', { roles: ['reader'] }, { project_id: null })).toBe(true);
    expect(enforce('named', { roles: ['service'], projectName: 'svc' }, { service_project: 'svc' })).toBe(
      true,
    );
  });

  it('reads @, !, an empty check, not, and and-before-or', () => {
    const none = { roles: [] };
    expect(enforce('anyone', none)).toBe(true);
    expect(enforce('nobody', none)).toBe(false);
    expect(enforce('empty', none)).toBe(true);
    expect(enforce('not-member', none)).toBe(true);
    expect(enforce('not-member', { roles: ['member'] })).toBe(false);
    const precedence = createPolicyEnforcer({ r: 'role:a or role:b and role:c' });
    expect(precedence('r', { roles: ['a'] })).toBe(true);
    expect(precedence('r', { roles: ['b'] })).toBe(false);
    expect(precedence('r', { roles: ['b', 'c'] })).toBe(true);
    const grouped = createPolicyEnforcer({ r: '(role:a or role:b) and role:c' });
    expect(grouped('r', { roles: ['a'] })).toBe(false);
  });

  it('lists its rules', () => {
    expect(createPolicyEnforcer({ a: '@', b: '!' }).rules).toEqual(['a', 'b']);
  });

  it.each([
    ['role:admin and', 'ends where a check was expected'],
    ['(role:admin', 'unclosed parenthesis'],
    ['role:admin role:reader', 'after a complete check'],
    ['admin', 'where a check was expected'],
    ['tenant:%(tenant)s', 'which credentials do not carry'],
    ['rule:missing', 'refers to a rule the table does not define'],
  ])('refuses the check %j when the table is compiled', (check, why) => {
    try {
      createPolicyEnforcer({ r: check });
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('policy/bad-check');
      expect((e as Error).message).toContain(why);
    }
  });

  it('refuses rules that refer to each other in a loop', () => {
    expect(() => createPolicyEnforcer({ a: 'rule:b', b: 'rule:a' })).toThrow(/loops back/);
  });

  it('refuses a rule the table does not define', () => {
    expect(() => enforce('svc:other', { roles: ['admin'] })).toThrow('No policy rule is named svc:other.');
  });
});

describe('credentialsHook', () => {
  const request = new Request('http://x/', { headers: { 'X-Roles': 'reader' } });

  it('treats every request as an admin without auth', async () => {
    expect(await credentialsHook(undefined)(request)).toBe('admin');
    expect(await credentialsHook('none')(request)).toBe('admin');
  });

  it('reads trusted headers, or asks a hook', async () => {
    expect(await credentialsHook('trusted-headers')(request)).toEqual({ roles: ['reader'] });
    expect(await credentialsHook(() => ({ roles: ['x'] }))(request)).toEqual({ roles: ['x'] });
  });

  it('refuses an unknown mode', () => {
    expect(() => credentialsHook('keystone' as never)).toThrow(/auth must be/);
  });
});
