// Bodies that are not UTF-8, and writes without the roles the policy wants,
// sent to Debian's Ironic 21.4 (identity from headers, new policy defaults)
// and to our API in its 21.4 profile under trusted headers: the same status,
// version headers and body for each, and nothing stored on either side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../test-support/python.js';
import { createDeployTemplatesApi, ironicProfile } from '../src/index.js';
import { type IronicOracle, startIronicOracle } from './support/ironic-oracle.js';
import { createNormalizer } from './support/normalize.js';

const OURS = 'http://ours.test';
const text = (s: string) => new TextEncoder().encode(s);
const ADMIN = { 'X-Roles': 'admin,member,reader', 'OpenStack-System-Scope': 'all' };
const TEMPLATE = (name: string) =>
  `{"name": "${name}", "steps": [{"interface": "raid", "step": "x", "args": {"a": "b`;
// A template whose arguments hold a byte that cannot start a UTF-8 character.
const BAD = Uint8Array.from([...text(TEMPLATE('CUSTOM_BAD')), 0xff, ...text('"}, "priority": 1}]}')]);
const GOOD = text(
  '{"name": "CUSTOM_GOOD", "steps": [{"interface": "raid", "step": "x", "args": {}, "priority": 1}]}',
);

interface Case {
  name: string;
  method: string;
  path: string;
  body?: Uint8Array;
  headers?: Record<string, string>;
  version?: string;
}

const CASES: Case[] = [
  { name: 'create, JSON', method: 'POST', path: '/v1/deploy_templates', body: BAD, headers: ADMIN },
  { name: 'create without roles, JSON', method: 'POST', path: '/v1/deploy_templates', body: BAD },
  {
    name: 'create, JSON with a charset',
    method: 'POST',
    path: '/v1/deploy_templates',
    body: BAD,
    headers: { ...ADMIN, 'Content-Type': 'application/json; charset=utf-8' },
  },
  { name: 'update, JSON', method: 'PATCH', path: '/v1/deploy_templates/CUSTOM_X', body: BAD, headers: ADMIN },
  {
    name: 'delete, JSON',
    method: 'DELETE',
    path: '/v1/deploy_templates/CUSTOM_X',
    body: BAD,
    headers: ADMIN,
  },
  { name: 'the root', method: 'POST', path: '/', body: BAD },
  { name: 'the v1 document', method: 'POST', path: '/v1', body: BAD },
  { name: 'an unknown resource', method: 'POST', path: '/v1/nope', body: BAD },
  { name: 'a method not allowed', method: 'PUT', path: '/v1/deploy_templates', body: BAD },
  { name: 'below 1.55', method: 'POST', path: '/v1/deploy_templates', body: BAD, version: '1.50' },
  { name: 'an unknown version', method: 'POST', path: '/v1/deploy_templates', body: BAD, version: '9.99' },
  {
    name: 'create, no media type',
    method: 'POST',
    path: '/v1/deploy_templates',
    body: BAD,
    headers: { ...ADMIN, 'Content-Type': '' },
  },
  {
    name: 'create, text/plain',
    method: 'POST',
    path: '/v1/deploy_templates',
    body: BAD,
    headers: { ...ADMIN, 'Content-Type': 'text/plain' },
  },
  { name: 'create without roles', method: 'POST', path: '/v1/deploy_templates', body: GOOD },
  {
    name: 'create as a project admin',
    method: 'POST',
    path: '/v1/deploy_templates',
    body: GOOD,
    headers: { 'X-Roles': 'admin', 'X-Project-Id': 'p1' },
  },
  {
    name: 'create as a system reader',
    method: 'POST',
    path: '/v1/deploy_templates',
    body: GOOD,
    headers: { 'X-Roles': 'reader', 'OpenStack-System-Scope': 'all' },
  },
  { name: 'delete without roles', method: 'DELETE', path: '/v1/deploy_templates/CUSTOM_GOOD' },
  { name: 'list without roles', method: 'GET', path: '/v1/deploy_templates' },
  {
    name: 'list as a system reader',
    method: 'GET',
    path: '/v1/deploy_templates',
    headers: { 'X-Roles': 'reader', 'OpenStack-System-Scope': 'all' },
  },
];

function toRequest(base: string, c: Case): Request {
  const headers = new Headers({ 'Content-Type': 'application/json', ...c.headers });
  if (headers.get('content-type') === '') headers.delete('content-type');
  headers.set('X-OpenStack-Ironic-API-Version', c.version ?? '1.55');
  return new Request(`${base}${c.path}`, { method: c.method, headers, ...(c.body ? { body: c.body } : {}) });
}

describe.runIf(oracleAvailable('ironic', ['ironic.api.app']))(
  'hostile bodies and missing roles, against Ironic 21.4',
  () => {
    let ironic: IronicOracle;
    beforeAll(async () => {
      ironic = await startIronicOracle('headers');
      await ironic.reset();
    }, 180_000);
    afterAll(() => ironic?.close());

    it('answers each as Ironic does, storing nothing', async () => {
      const api = createDeployTemplatesApi({ profile: ironicProfile('21.4'), auth: 'trusted-headers' });
      const theirs = createNormalizer(ironic.url);
      const ours = createNormalizer(OURS);
      const differences: unknown[] = [];
      for (const c of CASES) {
        const expected = await theirs(await fetch(toRequest(ironic.url, c)), c.path);
        const got = await ours(await api(toRequest(OURS, c)), c.path);
        if (JSON.stringify(expected) !== JSON.stringify(got))
          differences.push({ case: c.name, ironic: expected, ours: got });
      }
      expect(differences).toEqual([]);
      // The last case listed the templates: none on either side.
      expect((await api.service.store.list({})).length).toBe(0);
      await api.service.store.close();
    }, 120_000);
  },
);
