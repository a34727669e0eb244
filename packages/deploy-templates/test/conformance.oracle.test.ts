// The same requests to Debian's Ironic 21.4 and to our API in its 21.4
// profile must give the same status codes, version headers and bodies
// (uuids, timestamps and base URLs aside), on both of our stores. Where we
// differ on purpose, the request says so (`differs`) and both statuses are
// pinned; the README lists each difference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../test-support/python.js';
import { createDeployTemplatesApi, ironicProfile } from '../src/index.js';
import { type ConformanceRequest, PERSONAS, POLICY_REQUESTS, SCENARIOS, SEED } from './conformance-cases.js';
import { type IronicOracle, startIronicOracle } from './support/ironic-oracle.js';
import { createNormalizer, type Normalized } from './support/normalize.js';
import { testStores } from './support/stores.js';

const OURS = 'http://ours.test';
const profile = ironicProfile('21.4');

function toRequest(base: string, r: ConformanceRequest, extraHeaders: Record<string, string> = {}): Request {
  const headers = new Headers({ 'content-type': 'application/json', ...r.headers, ...extraHeaders });
  if (r.version !== null) headers.set('X-OpenStack-Ironic-API-Version', r.version ?? '1.55');
  const method = r.method ?? 'GET';
  const body = r.raw !== undefined ? r.raw : r.body === undefined ? undefined : JSON.stringify(r.body);
  return new Request(`${base}${r.path}`, {
    method,
    headers,
    ...(body !== undefined && method !== 'GET' ? { body } : {}),
  });
}

const run = oracleAvailable('ironic', ['ironic.api.app']);
const kinds = (await testStores()).filter((k) => k.available);

describe.runIf(run)('conformance with Ironic 21.4', () => {
  let noauth: IronicOracle;
  let headers: IronicOracle;
  beforeAll(async () => {
    [noauth, headers] = await Promise.all([startIronicOracle('noauth'), startIronicOracle('headers')]);
  });
  afterAll(async () => {
    await Promise.all([noauth?.close(), headers?.close(), ...kinds.map((k) => k.close())]);
  });

  describe.each(kinds)('on $name (noauth)', (stores) => {
    it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
      await noauth.reset(scenario.maxLimit !== undefined ? { maxLimit: scenario.maxLimit } : {});
      const api = createDeployTemplatesApi({
        store: await stores.make('conformance'),
        profile,
        ...(scenario.maxLimit !== undefined ? { maxLimit: scenario.maxLimit } : {}),
      });
      const theirs = createNormalizer(noauth.url);
      const ours = createNormalizer(OURS);
      const diffs: { request: ConformanceRequest; ironic: Normalized; ours: Normalized }[] = [];
      try {
        for (const request of scenario.requests) {
          const expected = await theirs(await fetch(toRequest(noauth.url, request)), request.path);
          const got = await ours(await api(toRequest(OURS, request)), request.path);
          if (request.differs) {
            // A documented difference: both sides must still answer as recorded.
            if (expected.status !== request.differs.ironic || got.status !== request.differs.ours)
              diffs.push({ request, ironic: expected, ours: got });
            continue;
          }
          // Ironic 21.4 answers 500 where it crashes (an empty POST body parsed as nothing); we answer 400.
          if (expected.status === 500) {
            if (got.status !== 400) diffs.push({ request, ironic: expected, ours: got });
            continue;
          }
          if (JSON.stringify(expected) !== JSON.stringify(got))
            diffs.push({ request, ironic: expected, ours: got });
        }
      } finally {
        await stores.cleanup();
      }
      expect(diffs).toEqual([]);
    });
  });

  // Ironic 21.4 cannot evaluate its own `service_role` rule (the
  // `%(config.service_project_name)s` substitution is unsupported there), so
  // a service user in the service project is denied; newer releases and we allow reads.
  const compared = Object.keys(PERSONAS).filter((p) => p !== 'service in the service project');
  const admin = PERSONAS['system admin'] as Record<string, string>;
  describe.each(kinds)('on $name (policy from identity headers)', (stores) => {
    it.each(compared)('%s', async (persona) => {
      await headers.reset();
      const api = createDeployTemplatesApi({
        store: await stores.make('policy'),
        profile,
        auth: 'trusted-headers',
      });
      const theirs = createNormalizer(headers.url);
      const ours = createNormalizer(OURS);
      const diffs: unknown[] = [];
      try {
        expect((await fetch(toRequest(headers.url, SEED, admin))).status).toBe(201);
        expect((await api(toRequest(OURS, SEED, admin))).status).toBe(201);
        for (const request of POLICY_REQUESTS) {
          const identity = PERSONAS[persona] as Record<string, string>;
          const expected = await theirs(await fetch(toRequest(headers.url, request, identity)));
          const got = await ours(await api(toRequest(OURS, request, identity)));
          if (JSON.stringify(expected) !== JSON.stringify(got))
            diffs.push({ request, ironic: expected, ours: got });
        }
      } finally {
        await stores.cleanup();
      }
      expect(diffs).toEqual([]);
    });
  });
});
