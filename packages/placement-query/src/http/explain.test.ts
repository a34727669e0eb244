import { describe, expect, it } from 'vitest';
import { AllocationCandidatesExplanationSchema } from '../engine/explain-schema.js';
import { parseInventory } from '../model/inventory-file.js';
import { EXPLAIN_HEADER, isExplainAsked } from './explain.js';
import { createPlacementHandler } from './service.js';

const GOLD = '11111111-1111-4111-8111-111111111111';

function server(options: { maxAllocationCandidates?: number } = {}) {
  const { store } = parseInventory(`
traits: [CUSTOM_FAST]
aggregates: {gold: ${GOLD}}
providers:
  - name: kvm-01
    inventories: {VCPU: 16, MEMORY_MB: 8192}
    aggregates: [gold]
  - name: kvm-02
    inventories: {VCPU: {total: 34, reserved: 2}, MEMORY_MB: 8192}
    usages: {VCPU: 26}
  - name: kvm-03
    inventories: {VCPU: 32, MEMORY_MB: 8192}
    traits: [CUSTOM_FAST]
`);
  const handler = createPlacementHandler({
    store,
    requestId: () => 'req-test',
    clock: () => new Date('2026-11-27T12:00:00Z'),
    ...options,
  });
  return async (path: string, headers: Record<string, string> = {}, version = '1.39') => {
    const r = await handler(
      new Request(`http://placement.test${path}`, {
        headers: { 'openstack-api-version': `placement ${version}`, ...headers },
      }),
    );
    const text = await r.text();
    return { status: r.status, headers: r.headers, text, body: text ? JSON.parse(text) : undefined };
  };
}

const ASK = { [EXPLAIN_HEADER]: 'json' };

describe('GET /allocation_candidates with Stackspec-Explain', () => {
  it("answers Placement's own body without the header, and with it set to no", async () => {
    const get = server();
    const plain = await get('/allocation_candidates?resources=VCPU:4');
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body)).toEqual(['allocation_requests', 'provider_summaries']);
    for (const no of ['0', 'false', '']) {
      const r = await get('/allocation_candidates?resources=VCPU:4', { [EXPLAIN_HEADER]: no });
      expect(r.text).toBe(plain.text);
      expect([...r.headers]).toEqual([...plain.headers]);
    }
  });

  it('explains why nothing fits, naming the providers without room', async () => {
    const get = server();
    const r = await get('/allocation_candidates?resources=VCPU:40', ASK);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('openstack-api-version')).toBe('placement 1.39');
    const e = AllocationCandidatesExplanationSchema.parse(r.body);
    expect(e.emptiedBy).toEqual({ group: '', stage: 'capacity', label: 'room for VCPU:40' });
    expect(e.groups[0]?.stages[1]?.examples.map((x) => `${x.name}: ${x.reason}`)).toEqual([
      'kvm-01: VCPU 16 free of 16 (reserved 0, ratio 1.0), 40 asked',
      'kvm-02: VCPU 6 free of 32 (reserved 2, ratio 1.0), 40 asked',
      'kvm-03: VCPU 32 free of 32 (reserved 0, ratio 1.0), 40 asked',
    ]);
    expect(e.candidates).toBe(0);
  });

  it('counts what the same query answers without the header, under the server’s own maximum', async () => {
    const get = server({ maxAllocationCandidates: 2 });
    const plain = await get('/allocation_candidates?resources=VCPU:4');
    const e = AllocationCandidatesExplanationSchema.parse(
      (await get('/allocation_candidates?resources=VCPU:4', { [EXPLAIN_HEADER]: 'TRUE' })).body,
    );
    expect(plain.body.allocation_requests).toHaveLength(2);
    expect(e).toMatchObject({ candidates: 3, returned: 2 });
    expect(e.emptiedBy).toBeUndefined();
  });

  it("gives a malformed query Placement's 400, exactly as without the header", async () => {
    const get = server();
    for (const path of [
      '/allocation_candidates?resources=VCPU:0',
      '/allocation_candidates?resources=VCPU:1&explain=1',
      '/allocation_candidates?resources=VCPU:1&required=CUSTOM_NOPE',
    ]) {
      const plain = await get(path);
      const asked = await get(path, ASK);
      expect(plain.status).toBe(400);
      expect(asked.status).toBe(400);
      expect(asked.text).toBe(plain.text);
    }
    const unknown = await get('/allocation_candidates?resources=VCPU:1&required=CUSTOM_NOPE', ASK);
    expect(unknown.body.errors[0].detail).toContain('No such trait(s): CUSTOM_NOPE.');
  });

  it('keeps the microversion rules: no allocation candidates before 1.10', async () => {
    const get = server();
    const r = await get('/allocation_candidates?resources=VCPU:1', ASK, '1.9');
    expect(r.status).toBe(404);
  });

  it('refuses a value of the header it does not know, saying which it takes', async () => {
    const get = server();
    const r = await get('/allocation_candidates?resources=VCPU:1', { [EXPLAIN_HEADER]: 'yes please' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].detail).toContain(
      'The stackspec-explain header must be json, 1 or true to ask for an explanation (0, false or empty for none); got "yes please".',
    );
  });
});

describe('isExplainAsked', () => {
  const req = (value?: string) =>
    new Request('http://x/', value === undefined ? {} : { headers: { 'Stackspec-Explain': value } });

  it('reads the header whatever its case and spacing', () => {
    expect(isExplainAsked(req())).toBe(false);
    expect(isExplainAsked(req(' JSON '))).toBe(true);
    expect(isExplainAsked(req('1'))).toBe(true);
    expect(isExplainAsked(req('False'))).toBe(false);
    expect(() => isExplainAsked(req('2'))).toThrow(/must be json, 1 or true/);
  });
});
