// The same requests to Debian's Ironic 21.4 and to our API in its 21.4
// profile must give the same status codes, version headers and bodies
// (uuids, timestamps and base URLs aside).
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../test-support/python.js';
import { createDeployTemplatesApi, createPgliteStore, ironicProfile } from '../src/index.js';
import { type ConformanceRequest, PERSONAS, POLICY_REQUESTS, SCENARIOS, SEED } from './conformance-cases.js';
import { type IronicOracle, startIronicOracle } from './support/ironic-oracle.js';
import { createNormalizer, type Normalized } from './support/normalize.js';

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

describe.runIf(run)('conformance with Ironic 21.4 (noauth)', () => {
  let oracle: IronicOracle;
  let db: PGlite;
  let n = 0;
  beforeAll(async () => {
    [oracle, db] = await Promise.all([startIronicOracle('noauth'), PGlite.create()]);
  });
  afterAll(async () => {
    await Promise.all([oracle?.close(), db?.close()]);
  });

  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    await oracle.reset(scenario.maxLimit !== undefined ? { maxLimit: scenario.maxLimit } : {});
    n += 1;
    const api = createDeployTemplatesApi({
      store: createPgliteStore({ db, schema: `conformance_${n}` }),
      profile,
      ...(scenario.maxLimit !== undefined ? { maxLimit: scenario.maxLimit } : {}),
    });
    const theirs = createNormalizer(oracle.url);
    const ours = createNormalizer(OURS);
    const diffs: { request: ConformanceRequest; ironic: Normalized; ours: Normalized }[] = [];
    for (const request of scenario.requests) {
      const expected = await theirs(await fetch(toRequest(oracle.url, request)));
      const got = await ours(await api(toRequest(OURS, request)));
      // The /v1 document lists only the resources we serve.
      if (request.path === '/v1' || request.path === '/v1/') continue;
      // Ironic 21.4 answers 500 where it crashes (an empty POST body parsed as nothing); we answer 400.
      if (expected.status === 500) {
        expect(got.status).toBe(400);
        continue;
      }
      if (JSON.stringify(expected) !== JSON.stringify(got))
        diffs.push({ request, ironic: expected, ours: got });
    }
    expect(diffs).toEqual([]);
  });
});

describe.runIf(run)('conformance with Ironic 21.4 (policy from identity headers)', () => {
  let oracle: IronicOracle;
  let db: PGlite;
  let n = 0;
  const admin = PERSONAS['system admin'] as Record<string, string>;
  beforeAll(async () => {
    [oracle, db] = await Promise.all([startIronicOracle('headers'), PGlite.create()]);
  });
  afterAll(async () => {
    await Promise.all([oracle?.close(), db?.close()]);
  });

  // Ironic 21.4 cannot evaluate its own `service_role` rule (the
  // `%(config.service_project_name)s` substitution is unsupported there), so
  // a service user in the service project is denied; newer releases and we allow reads.
  const compared = Object.keys(PERSONAS).filter((p) => p !== 'service in the service project');
  it.each(compared)('%s', async (persona) => {
    await oracle.reset();
    n += 1;
    const api = createDeployTemplatesApi({
      store: createPgliteStore({ db, schema: `policy_${n}` }),
      profile,
      auth: 'trusted-headers',
    });
    const theirs = createNormalizer(oracle.url);
    const ours = createNormalizer(OURS);
    expect((await fetch(toRequest(oracle.url, SEED, admin))).status).toBe(201);
    expect((await api(toRequest(OURS, SEED, admin))).status).toBe(201);
    const diffs: unknown[] = [];
    for (const request of POLICY_REQUESTS) {
      const headers = PERSONAS[persona] as Record<string, string>;
      const expected = await theirs(await fetch(toRequest(oracle.url, request, headers)));
      const got = await ours(await api(toRequest(OURS, request, headers)));
      if (JSON.stringify(expected) !== JSON.stringify(got))
        diffs.push({ request, ironic: expected, ours: got });
    }
    expect(diffs).toEqual([]);
  });
});
