// The Placement API under trusted headers against Placement 8.0 itself, run
// in-process (support/run-placement.py, its default policy configuration,
// identity from the same headers): who may read and write, the 403 body,
// where the check falls (after the media type, before the body is read), and
// the 400 for a body that is not UTF-8, after which nothing is stored.
// Placement runs with its policy configuration as 8.0 ships it
// (enforce_new_defaults off), and ours with its default, which is meant to
// be the same; enforceNewDefaults is compared rule by rule in
// policy.oracle.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../test-support/python.js';
import { createPlacementHandler, type PlacementHandler } from '../src/http/service.js';
import { type RunningOracle, startOracle } from './support/oracle.js';

const RP = 'aaaaaaaa-1111-4111-8111-111111111111';
const text = (s: string) => new TextEncoder().encode(s);

interface Call {
  method: string;
  path: string;
  who: string;
  body?: Uint8Array;
  type?: string;
}

const WHO: Record<string, { roles: string; system?: boolean }> = {
  nobody: { roles: '' },
  member: { roles: 'member,reader' },
  'system reader': { roles: 'reader', system: true },
  'project admin': { roles: 'admin,member,reader' },
  'system admin': { roles: 'admin,member,reader', system: true },
};

function headersFor(call: Call, ours: boolean): Record<string, string> {
  const who = WHO[call.who] as { roles: string; system?: boolean };
  const h: Record<string, string> = {
    'openstack-api-version': 'placement 1.39',
    // Placement's noauth2 takes the user and project from the token; ours from X-Project-Id.
    'x-auth-token': 'u1:p1',
    'x-roles': who.roles,
  };
  if (who.system) h['openstack-system-scope'] = 'all';
  else if (ours) h['x-project-id'] = 'p1';
  if (call.body) h['content-type'] = call.type ?? 'application/json';
  return h;
}

function withoutRequestIds(body: string): unknown {
  if (!body) return body;
  const value = JSON.parse(body) as { errors?: Record<string, unknown>[] };
  for (const e of value.errors ?? []) delete e.request_id;
  return value;
}

function corpus(): Call[] {
  const out: Call[] = [];
  const provider = (name: string) => text(JSON.stringify({ name, uuid: RP }));
  for (const who of Object.keys(WHO)) {
    out.push(
      { method: 'GET', path: '/resource_providers', who },
      { method: 'GET', path: '/traits?name=startswith:CUSTOM_', who },
      { method: 'GET', path: '/usages?project_id=p1', who },
      { method: 'GET', path: '/usages?project_id=p2', who },
      { method: 'GET', path: '/allocation_candidates?resources=VCPU:1', who },
      // A wrong media type is refused before the policy; a body that is not UTF-8 after it.
      { method: 'POST', path: '/resource_providers', who, body: provider('x'), type: 'text/plain' },
      {
        method: 'POST',
        path: '/resource_providers',
        who,
        body: Uint8Array.from([...text('{"name": "c'), 0xff, 0xfe, ...text('"}')]),
      },
      { method: 'PUT', path: '/traits/CUSTOM_ORACLE', who },
      { method: 'DELETE', path: '/traits/CUSTOM_ORACLE', who },
      { method: 'POST', path: '/resource_providers', who, body: provider(`rp-${who.replace(' ', '-')}`) },
      { method: 'DELETE', path: `/resource_providers/${RP}`, who },
    );
  }
  return out;
}

describe.runIf(oracleAvailable('placement', ['placement.deploy']))(
  'the Placement API under trusted headers, against Placement 8.0',
  () => {
    let oracle: RunningOracle;
    let ours: PlacementHandler;
    beforeAll(async () => {
      oracle = await startOracle();
      ours = createPlacementHandler({ auth: 'trusted-headers' });
    }, 180_000);
    afterAll(() => oracle?.close());

    it('answers every call with the same status and body', async () => {
      const differences: unknown[] = [];
      let refused = 0;
      for (const call of corpus()) {
        const init = (isOurs: boolean): RequestInit => ({
          method: call.method,
          headers: headersFor(call, isOurs),
          ...(call.body ? { body: call.body } : {}),
        });
        const r = await fetch(`${oracle.url}${call.path}`, init(false));
        const theirs = { status: r.status, body: withoutRequestIds(await r.text()) };
        const o = await ours(new Request(`http://placement.test${call.path}`, init(true)));
        const mine = { status: o.status, body: withoutRequestIds(await o.text()) };
        if (theirs.status === 403) refused += 1;
        if (JSON.stringify(mine) !== JSON.stringify(theirs))
          differences.push({ call: { ...call, body: undefined }, mine, theirs });
      }
      expect(refused).toBeGreaterThan(10);
      expect(differences).toEqual([]);
    }, 120_000);
  },
);
