// Request sequences sent to the real Ironic and to our API; each scenario
// starts from an empty database. Headers default to API 1.55 and JSON.

export interface ConformanceRequest {
  method?: string;
  path: string;
  version?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body text (for malformed JSON). */
  raw?: string;
  /** A deliberate difference (listed in the README): the status each side must answer. */
  differs?: { ironic: number; ours: number; why: string };
}

export interface Scenario {
  name: string;
  requests: ConformanceRequest[];
  maxLimit?: number;
}

const T = '/v1/deploy_templates';
/** A RAID deploy step mirroring the root disk, with `extra` fields over it. */
export const step = (extra: Record<string, unknown> = {}) => ({
  interface: 'raid',
  step: 'create_configuration',
  args: {
    logical_disks: [{ size_gb: 'MAX', raid_level: '1', is_root_volume: true }],
    delete_configuration: true,
  },
  priority: 10,
  ...extra,
});
const bios = (extra: Record<string, unknown> = {}) => ({
  interface: 'bios',
  step: 'apply_configuration',
  args: {
    settings: [{ name: 'ProcVirtualization', value: 'Enabled' }],
    bmc_password: 'hunter2',
    note: 'admin_pass=foo',
  },
  priority: 150,
  ...extra,
});
const U1 = '8221f906-208b-44a5-b575-f8e8a59c4a84';
const U2 = '0b2d5e7c-3a41-4f6a-9d3e-2f6b8c1a9e10';
const create = (name: string, extra: Record<string, unknown> = {}): ConformanceRequest => ({
  method: 'POST',
  path: T,
  body: { name, steps: [step()], ...extra },
});
const post = (body: unknown): ConformanceRequest => ({ method: 'POST', path: T, body });
const patch = (ident: string, body: unknown): ConformanceRequest => ({
  method: 'PATCH',
  path: `${T}/${ident}`,
  body,
});

export const SCENARIOS: Scenario[] = [
  {
    name: 'version gate and negotiation',
    requests: [
      { path: T, version: null },
      { method: 'POST', path: T, version: null, body: {} },
      { path: T, version: '1.54' },
      { method: 'PATCH', path: `${T}/CUSTOM_A`, version: '1.54', body: [] },
      { method: 'DELETE', path: `${T}/CUSTOM_A`, version: '1.54' },
      { path: T, version: '1.99' },
      { path: T, version: '1.abc' },
      { path: T, version: '2.1' },
      { path: T, version: '01.055' },
      { path: T, version: 'latest' },
      { path: `${T}/CUSTOM_A`, version: '1.54' },
      // Ironic 21.4 reads only its own header: an empty one is malformed, and
      // OpenStack-API-Version is ignored (the newest profile reads it first).
      { path: T, version: '' },
      { path: T, version: '1.60', headers: { 'OpenStack-API-Version': 'baremetal 1.70' } },
      { path: T, version: null, headers: { 'OpenStack-API-Version': 'baremetal 1.70' } },
    ],
  },
  {
    name: 'root and unknown paths',
    requests: [
      { path: '/', version: null },
      { path: '/v1/nope' },
      { method: 'PUT', path: `${T}/CUSTOM_A`, body: {} },
    ],
  },
  {
    name: 'create, show, list and delete',
    requests: [
      post({ name: 'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR', steps: [step(), bios()], uuid: U1, extra: { a: 1 } }),
      { path: `${T}/${U1}` },
      { path: `${T}/CUSTOM_BM_CONFIG_RAID_DISK_MIRROR` },
      { path: `${T}/${U1}?fields=name,steps` },
      { path: `${T}/${U1}?fields=` },
      { path: `${T}/${U1}?fields=NAME,%20uuid,name` },
      { path: `${T}/${U1}?fields=colour` },
      { path: `${T}/${U1}?detail=true` },
      create('CUSTOM_B', { extra: null }),
      create('HW_CPU_X86_AVX2'),
      { path: T },
      { path: `${T}?detail=True` },
      { path: `${T}?detail=no` },
      { path: `${T}?fields=name,extra` },
      { path: `${T}?detail=false&fields=steps` },
      { method: 'DELETE', path: `${T}/CUSTOM_B` },
      { method: 'DELETE', path: `${T}/CUSTOM_B` },
      { method: 'DELETE', path: `${T}/${U1}` },
      { path: T },
      { path: `${T}/${U2}` },
    ],
  },
  {
    name: 'string priorities, null uuid and the description quirk',
    requests: [
      post({ name: 'CUSTOM_A', steps: [step({ priority: '42' })], uuid: null, description: 'dropped' }),
      { path: `${T}/CUSTOM_A` },
      { path: `${T}?fields=description` },
      post({ name: 'CUSTOM_B', steps: [step({ priority: '0' })], description: null }),
    ],
  },
  {
    name: 'pagination',
    maxLimit: 3,
    requests: [
      create('CUSTOM_P1'),
      create('CUSTOM_P2'),
      create('CUSTOM_P3'),
      create('CUSTOM_P4'),
      create('CUSTOM_P5'),
      { path: `${T}?limit=2` },
      { path: T },
      { path: `${T}?limit=10&detail=true` },
      { path: `${T}?limit=2&sort_key=name&sort_dir=desc&fields=name` },
      { path: `${T}?sort_key=&limit=1` },
      { path: `${T}?limit=2&detail=false` },
      { path: `${T}?limit=%2B2` },
    ],
  },
  {
    name: 'list parameter errors',
    requests: [
      create('CUSTOM_A'),
      { path: `${T}?limit=abc` },
      { path: `${T}?limit=0` },
      { path: `${T}?limit=-1` },
      { path: `${T}?sort_dir=up` },
      { path: `${T}?sort_dir=` },
      { path: `${T}?sort_key=extra` },
      { path: `${T}?sort_key=steps` },
      { path: `${T}?sort_key=colour` },
      { path: `${T}?sort_key=name&sort_dir=desc` },
      { path: `${T}?sort_key=updated_at` },
      { path: `${T}?fields=colour,uuid` },
      { path: `${T}?detail=maybe` },
      { path: `${T}?detail=True&fields=name` },
      { path: `${T}?marker=${U2}` },
      { path: `${T}?marker=` },
      { path: `${T}?marker=CUSTOM_A` },
      { path: `${T}?marker=a%20b` },
      { path: `${T}?colour=red` },
      { path: `${T}?fields=name&fields=uuid` },
      { path: `${T}?limit=1&limit=2` },
    ],
  },
  {
    name: 'create errors',
    requests: [
      create('CUSTOM_A', { uuid: U1 }),
      post({}),
      post({ steps: [step()] }),
      post({ name: 'CUSTOM_X' }),
      post({ name: 'CUSTOM_X', steps: [] }),
      post({ name: 'CUSTOM_X', steps: 'x' }),
      post({ name: 'my-trait', steps: [step()] }),
      post({ name: 'custom_x', steps: [step()] }),
      post({ name: 'CUSTOM_', steps: [step()] }),
      post({ name: '', steps: [step()] }),
      post({ name: null, steps: [step()] }),
      post({ name: 7, steps: [step()] }),
      post({ name: `CUSTOM_${'A'.repeat(249)}`, steps: [step()] }),
      post({ name: 'HW_NVME_BES', steps: [step()] }),
      post({ name: 'CUSTOM_X', steps: [step()], colour: 'red' }),
      post({ name: 'CUSTOM_X', steps: [step()], extra: 'x' }),
      post({ name: 'CUSTOM_X', steps: [step({ interface: 'vendor' })] }),
      post({ name: 'CUSTOM_X', steps: [step({ step: '' })] }),
      post({ name: 'CUSTOM_X', steps: [step({ args: [] })] }),
      post({ name: 'CUSTOM_X', steps: [step({ args: 'x' })] }),
      post({ name: 'CUSTOM_X', steps: [step({ priority: -5 })] }),
      post({ name: 'CUSTOM_X', steps: [step({ priority: 1.5 })] }),
      post({ name: 'CUSTOM_X', steps: [step({ priority: true })] }),
      post({ name: 'CUSTOM_X', steps: [step({ priority: 'x1' })] }),
      post({ name: 'CUSTOM_X', steps: [step({ foo: 1 })] }),
      post({ name: 'CUSTOM_X', steps: [{ interface: 'raid', step: 'x', args: {} }] }),
      post({ name: 'CUSTOM_X', steps: [step(), step({ args: {}, priority: 0 })] }),
      post({ name: 'CUSTOM_X', steps: [step()], uuid: 'not-a-uuid' }),
      post({ name: 'CUSTOM_A', steps: [step()] }),
      post({ name: 'CUSTOM_Z', steps: [step()], uuid: U1 }),
      post('text'),
      post([]),
      { method: 'POST', path: T, raw: '' },
      { method: 'POST', path: `${T}?colour=red`, body: { name: 'CUSTOM_Q', steps: [step()] } },
    ],
  },
  {
    name: 'patch',
    requests: [
      create('CUSTOM_A', { uuid: U1, extra: { keep: true } }),
      create('CUSTOM_B'),
      patch('CUSTOM_A', [{ op: 'add', path: '/name', value: 'CUSTOM_C' }]),
      patch('CUSTOM_C', [
        { op: 'replace', path: '/extra/keep', value: false },
        { op: 'add', path: '/extra/new', value: [1] },
      ]),
      patch(U1, [{ op: 'add', path: '/steps/-', value: bios() }]),
      patch(U1, [{ op: 'add', path: '/steps/0/foo', value: 1 }]),
      patch(U1, [{ op: 'replace', path: '/steps/1/priority', value: 0 }]),
      patch(U1, [{ op: 'remove', path: '/extra' }]),
      patch(U1, []),
      { path: `${T}/${U1}` },
      patch(U1, [{ op: 'add', path: '/steps', value: [step({ priority: 99 })] }]),
      patch(U1, [{ op: 'replace', path: '/name', value: 'CUSTOM_B' }]),
      patch(U1, [{ op: 'replace', path: '/uuid', value: U2 }]),
      patch(U1, [{ op: 'replace', path: '/created_at', value: 'x' }]),
      patch(U1, [{ op: 'add', path: '/description', value: 'x' }]),
      patch(U1, [{ op: 'add', path: '/steps/5', value: step() }]),
      patch(U1, [{ op: 'replace', path: '/steps/5', value: step() }]),
      patch(U1, [{ op: 'remove', path: '/steps/5' }]),
      patch(U1, [{ op: 'remove', path: '/extra/nothing' }]),
      patch(U1, [{ op: 'add', path: '/extra/a/b', value: 1 }]),
      patch(U1, [{ op: 'remove', path: '/name' }]),
      patch(U1, [{ op: 'remove', path: '/steps' }]),
      patch(U1, [{ op: 'remove', path: '/steps/0' }]),
      patch(U1, [{ op: 'add', path: '/steps/-', value: step({ args: {} }) }]),
      patch(U1, [{ op: 'replace', path: '/name', value: 'bad name' }]),
      patch(U1, [{ op: 'replace', path: '/steps/0/priority', value: -1 }]),
      patch(U1, [{ op: 'test', path: '/name', value: 'x' }]),
      patch(U1, [{ op: 'add', path: 'name', value: 'x' }]),
      patch(U1, [{ op: 'move', from: '/name', path: '/extra/x' }]),
      patch(U1, { op: 'add', path: '/name', value: 'CUSTOM_Q' }),
      patch(U1, [{ op: 'add', path: '/extra/x' }]),
      patch(U1, [
        { op: 'add', path: '/extra/ok', value: 1 },
        { op: 'add', path: '/description', value: 'x' },
      ]),
      patch(U1, [
        { op: 'add', path: '/extra/ok', value: 1 },
        { op: 'remove', path: '/steps/9' },
      ]),
      { path: `${T}/${U1}` },
      patch(U2, [{ op: 'add', path: '/name', value: 'CUSTOM_Q' }]),
      patch('bad%20name', [{ op: 'add', path: '/name', value: 'CUSTOM_Q' }]),
      { method: 'PATCH', path: T, body: [] },
      { method: 'DELETE', path: T },
      { method: 'DELETE', path: `${T}/bad%20name` },
    ],
  },
  {
    name: 'the /v1 document',
    requests: [
      { path: '/v1', version: null },
      { path: '/v1/', version: '1.54' },
      { path: '/v1' },
      { path: '/v1/', version: 'latest' },
      { path: '/v1.json' },
      { path: '/v1', version: '1.99' },
      { path: '/v1', version: '1.abc' },
      { path: '/v1/', version: '2.1' },
      { path: '/v1.json', version: '1.0' },
      { method: 'POST', path: '/v1', body: {} },
      { method: 'DELETE', path: '/v1/' },
      { method: 'POST', path: '/v1', version: '1.99', body: {} },
      { method: 'POST', path: '/', version: null, body: {} },
      { method: 'PUT', path: '/', version: '1.55', body: {} },
    ],
  },
  {
    name: 'malformed identifiers and escapes',
    requests: [
      create('CUSTOM_A'),
      { path: `${T}/%ZZ` },
      { method: 'PATCH', path: `${T}/%ZZ`, body: [] },
      { method: 'DELETE', path: `${T}/%ZZ` },
      { path: `${T}/%E0%A4%A` },
      { path: '/v1/%E0%A4' },
      { path: `${T}?marker=%E0%A4` },
      { path: `${T}?colour=%E0` },
      { path: `${T}?limit=%ZZ` },
      { path: `${T}/%E2%82%AC` },
      { path: `${T}/%41` },
      {
        path: `${T}/CUSTOM_B%2Fb`,
        differs: { ironic: 404, ours: 400, why: 'Ironic splits the identifier at the decoded slash' },
      },
      {
        path: `${T}/CUSTOM_A/fields`,
        differs: { ironic: 400, ours: 404, why: "Ironic's router passes extra segments on as arguments" },
      },
    ],
  },
  {
    name: 'values the database cannot keep',
    requests: [
      post({ name: 'CUSTOM_A', steps: [step({ step: 's'.repeat(255) })] }),
      post({
        name: 'CUSTOM_B',
        steps: [step({ args: { k: 'a\u0000', 'b\u0000': [] } })],
        extra: { x: '\u0000' },
      }),
      { path: `${T}/CUSTOM_B` },
      post({ name: 'CUSTOM_C', steps: [step({ priority: 1e3 })] }),
      { path: `${T}/CUSTOM_C` },
      { path: `${T}/CUSTOM_A` },
      {
        ...post({ name: 'CUSTOM_X', steps: [step({ step: 's'.repeat(256) })] }),
        differs: { ironic: 201, ours: 400, why: 'SQLite ignores the column size; PostgreSQL refuses it' },
      },
      {
        ...post({ name: 'CUSTOM_Y', steps: [step({ step: 'a\u0000b' })] }),
        differs: { ironic: 201, ours: 400, why: 'SQLite stores NUL; PostgreSQL refuses it' },
      },
      post({ name: 'CUSTOM_Z', steps: [step({ step: 'a\ud800b' })] }),
      {
        method: 'POST',
        path: T,
        raw: `{"name": "CUSTOM_D", "steps": [{"interface": "raid", "step": "x", "args": ${'{"a":'.repeat(300)}1${'}'.repeat(300)}, "priority": 1}]}`,
        differs: { ironic: 201, ours: 400, why: 'our nesting limit is 200 levels' },
      },
      {
        method: 'POST',
        path: T,
        raw: `{"name": "CUSTOM_E", "steps": [{"interface": "raid", "step": "x", "args": ${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}, "priority": 1}]}`,
      },
      {
        method: 'POST',
        path: T,
        raw: '{"name": "CUSTOM_F", "steps": [{"interface": "raid", "step": "x", "args": {"n": 1e400}, "priority": 1}]}',
        differs: { ironic: 201, ours: 400, why: 'Ironic stores Infinity, which is not JSON' },
      },
      {
        ...patch('CUSTOM_A', [{ op: 'replace', path: '/steps/0/step', value: 's'.repeat(256) }]),
        differs: { ironic: 200, ours: 400, why: 'SQLite ignores the column size; PostgreSQL refuses it' },
      },
    ],
  },
  {
    name: 'the .json suffix below 1.91',
    requests: [
      create('CUSTOM_A', { uuid: U1 }),
      { path: `${T}/CUSTOM_A.json` },
      { path: `${T}/${U1}.json` },
      { path: `${T}.json` },
      { path: `${T}/CUSTOM_NOPE.json` },
      // 21.4 strips it whatever the headers say, before negotiating.
      { path: `${T}/CUSTOM_A.json`, version: 'latest' },
      { path: `${T}/CUSTOM_A.json/` },
      { path: `${T}/CUSTOM_A.json`, version: null, headers: { 'OpenStack-API-Version': 'baremetal 1.70' } },
      { path: '/.json', version: '1.0' },
      { path: `${T}/.json` },
      { path: '/v1.json', version: null },
    ],
  },
  {
    name: 'paths without /v1',
    requests: [
      { method: 'POST', path: '/deploy_templates', body: { name: 'CUSTOM_A', steps: [step()] } },
      { path: '/deploy_templates' },
      { path: '/deploy_templates/', version: null },
      { path: '/deploy_templates/CUSTOM_A/' },
      { path: '/deploy_templates/CUSTOM_A.json' },
      {
        method: 'PATCH',
        path: '/deploy_templates/CUSTOM_A',
        body: [{ op: 'add', path: '/extra/a', value: 1 }],
      },
      { method: 'DELETE', path: '/deploy_templates' },
      { method: 'PUT', path: '/deploy_templates', body: {} },
      { path: '/whatever' },
      { path: '/whatever/x', version: '1.0' },
      { path: '/whatever', version: '1.abc' },
      { path: '/v1/v1' },
      { method: 'DELETE', path: '/deploy_templates/CUSTOM_A' },
    ],
  },
];

/** Requests for the policy scenario, each with the identity headers of a persona. */
export const PERSONAS: Record<string, Record<string, string>> = {
  'system admin': { 'X-Roles': 'admin,member,reader', 'OpenStack-System-Scope': 'all' },
  'system member': { 'X-Roles': 'member,reader', 'OpenStack-System-Scope': 'all' },
  'system reader': { 'X-Roles': 'reader', 'OpenStack-System-Scope': 'all' },
  'project admin': { 'X-Roles': 'admin,member,reader', 'X-Project-Id': 'p1' },
  'project reader': { 'X-Roles': 'reader', 'X-Project-Id': 'p1' },
  'legacy baremetal_admin': {
    'X-Roles': 'baremetal_admin',
    'X-Project-Id': 'p1',
    'X-Project-Name': 'baremetal',
  },
  'service in the service project': {
    'X-Roles': 'service',
    'X-Project-Id': 'p2',
    'X-Project-Name': 'service',
  },
  'service in another project': { 'X-Roles': 'service', 'X-Project-Id': 'p3', 'X-Project-Name': 'other' },
  anonymous: {},
};

export const POLICY_REQUESTS: ConformanceRequest[] = [
  { path: T },
  { path: `${T}/CUSTOM_SEED` },
  { method: 'POST', path: T, body: { name: 'CUSTOM_NEW', steps: [step()] } },
  { method: 'POST', path: T, body: { name: 'bad name', steps: [step()] } },
  { method: 'PATCH', path: `${T}/CUSTOM_SEED`, body: [{ op: 'add', path: '/extra/x', value: 1 }] },
  { method: 'PATCH', path: `${T}/CUSTOM_SEED`, body: [{ op: 'test', path: '/extra/x', value: 1 }] },
  { method: 'PATCH', path: `${T}/CUSTOM_SEED`, body: [{ op: 'add', path: '/created_at', value: 1 }] },
  { path: `${T}?limit=abc` },
  { method: 'DELETE', path: `${T}/CUSTOM_NOPE` },
  { method: 'DELETE', path: `${T}/CUSTOM_NEW` },
];

export const SEED = create('CUSTOM_SEED');
