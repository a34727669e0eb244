import { credentialsFromHeaders as coreCredentialsFromHeaders } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { createDeployTemplatePolicy, credentialsFromHeaders, forbidden } from './policy.js';

const GET = 'baremetal:deploy_template:get';
const CREATE = 'baremetal:deploy_template:create';

describe('createDeployTemplatePolicy', () => {
  const policy = createDeployTemplatePolicy();
  const legacy = createDeployTemplatePolicy({ legacy: true });

  it('lets a system admin write and a system reader only read', () => {
    expect(policy(CREATE, { roles: ['admin'], systemScope: 'all' })).toBe(true);
    expect(policy(GET, { roles: ['reader'], systemScope: 'all' })).toBe(true);
    expect(policy(CREATE, { roles: ['member', 'reader'], systemScope: 'all' })).toBe(false);
  });

  it('gives project-scoped tokens nothing by default', () => {
    expect(policy(GET, { roles: ['admin', 'reader'], projectId: 'p' })).toBe(false);
    expect(policy(CREATE, { roles: ['admin'], projectId: 'p' })).toBe(false);
  });

  it('lets the service role read from the service project or system scope', () => {
    expect(policy(GET, { roles: ['service'], projectName: 'service' })).toBe(true);
    expect(policy(GET, { roles: ['service'], projectName: 'other' })).toBe(false);
    expect(
      createDeployTemplatePolicy({ serviceProjectName: 'svc' })(GET, {
        roles: ['service'],
        projectName: 'svc',
      }),
    ).toBe(true);
  });

  it('accepts the deprecated rules only when asked', () => {
    const observer = { roles: ['baremetal_observer'], projectName: 'baremetal' };
    expect(policy(GET, observer)).toBe(false);
    expect(legacy(GET, observer)).toBe(true);
    expect(legacy(CREATE, observer)).toBe(false);
    expect(legacy(CREATE, { roles: ['baremetal_admin'], projectName: 'demo' })).toBe(true);
    expect(legacy(CREATE, { roles: ['baremetal_admin'], projectName: 'other' })).toBe(false);
    expect(legacy(CREATE, { roles: ['Admin'], projectId: 'p' })).toBe(true);
  });
});

describe('credentialsFromHeaders', () => {
  // Core's tests cover how the headers are read; this package must hand on that very reader.
  it("is core's reader of keystonemiddleware's headers", () => {
    expect(credentialsFromHeaders).toBe(coreCredentialsFromHeaders);
  });
});

describe('forbidden', () => {
  it('is Ironic’s 403', () => {
    const e = forbidden(CREATE);
    expect(e.status).toBe(403);
    expect(e.message).toBe('Access was denied to the following resource: baremetal:deploy_template:create');
  });
});
