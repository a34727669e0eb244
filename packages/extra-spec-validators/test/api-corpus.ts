// The requests the API conformance suite sends to Nova and to the handler:
// every body, path and method case at no version, 2.1, 2.85 and 2.86, the
// version edge cases, and the body limits (size, streaming, nesting, bytes).

export interface Call {
  method: string;
  flavor: string;
  key?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Send the body without a Content-Length (as a chunked upload). */
  chunked?: boolean;
}

const POST_BODIES: string[] = [
  '{"extra_specs": {"hw:cpu_policy": "dedicated"}}',
  '{"extra_specs": {"hw:cpu_policy": "x"}}',
  '{"extra_specs": {"hw:cpu_polcy": "dedicated"}}',
  '{"extra_specs": {"foo:bar": "x", "hw:pmu": "maybe"}}',
  '{"extra_specs": {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "0", "hw:pmu": "x"}}',
  '{"extra_specs": {"hw:numa_nodes": 2}}',
  '{"extra_specs": {"hw:numa_nodes": 2.0}}',
  '{"extra_specs": {"hw:numa_nodes": 1e3, "x": -0, "y": 1.5e300, "z": 0.0001, "w": 1e16}}',
  '{"extra_specs": {"hw:tpm_version": 2.0}}',
  '{"extra_specs": {"hw:numa_nodes": NaN}}',
  '{"extra_specs": {"hw:numa_nodes": -Infinity}}',
  `{"extra_specs": {"x": ${'1'.repeat(300)}}}`,
  `{"extra_specs": {"x": ${'1'.repeat(255)}}}`,
  '{"extra_specs": {"hw:pmu": true}}',
  '{"extra_specs": {"hw:pmu": null}}',
  '{"extra_specs": {"hw:pmu": {"a": [1, "b"]}}}',
  `{"extra_specs": {"x": "${'a'.repeat(256)}"}}`,
  `{"extra_specs": {"x": "${'a'.repeat(255)}"}}`,
  '{"extra_specs": {"hw/x": "1"}}',
  '{"extra_specs": {"b/x": "1", "a/x": "2", "ok": "3"}}',
  '{"extra_specs": {"": "1"}}',
  `{"extra_specs": {"${'k'.repeat(256)}": "1"}}`,
  '{"extra_specs": {"\\u00fc": "1"}}',
  '{"extra_specs": {"hw:cpu_policy\\n": "dedicated"}}',
  '{"extra_specs": {"hw:numa_cpus.{num}": "0"}}',
  '{"extra_specs": {"hw:numa_cpusX0": "0-1", "hw:numa_memZ1": "0"}}',
  '{"extra_specs": {"hw:pmu": "It\'s \\"quoted\\" \\u00e9\\t"}}',
  '{"extra_specs": {"x": true, "y/z": "1"}}',
  '{"extra_specs": {}}',
  '{"extra_specs": "x"}',
  '{"extra_specs": []}',
  '{}',
  '{"foo": {}}',
  '{"extra_specs": {}, "x": 1}',
  '[]',
  '"x"',
  '1',
  'null',
  'not json',
  '{"extra_specs": {"a": "b",}}',
];

const PUT_CASES: [string, string][] = [
  ['hw:cpu_policy', '{"hw:cpu_policy": "dedicated"}'],
  ['hw:cpu_policy', '{"hw:cpu_policy": "x"}'],
  ['hw:other', '{"hw:cpu_policy": "dedicated"}'],
  ['hw:other', '{"hw:cpu_policy": "x"}'],
  ['hw:numa_nodes', '{"hw:numa_nodes": 2.0}'],
  ['a', '{}'],
  ['a', '{"a": "1", "b": "2"}'],
  ['a', '{"a": "1", "b/c": "2"}'],
  ['a', '{"a": false}'],
  ['a', '[]'],
  ['a', ''],
  ['foo:bar', '{"foo:bar": "anything"}'],
];

/** Every request of the suite, in order. */
export function corpus(): Call[] {
  const calls: Call[] = [];
  const versions: (Record<string, string> | undefined)[] = [
    undefined,
    { 'OpenStack-API-Version': 'compute 2.1' },
    { 'OpenStack-API-Version': 'compute 2.85' },
    { 'OpenStack-API-Version': 'compute 2.86' },
  ];
  for (const headers of versions) {
    const h = headers ? { headers } : {};
    for (const body of POST_BODIES) calls.push({ method: 'POST', flavor: 'f1', body, ...h });
    calls.push({ method: 'POST', flavor: 'f1', ...h });
    calls.push({ method: 'POST', flavor: 'nope', body: POST_BODIES[0] as string, ...h });
    calls.push({ method: 'POST', flavor: 'nope', body: POST_BODIES[1] as string, ...h });
    for (const [key, body] of PUT_CASES) calls.push({ method: 'PUT', flavor: 'f1', key, body, ...h });
    calls.push({ method: 'PUT', flavor: 'nope', key: 'hw:cpu_policy', body: '{"hw:cpu_policy": "x"}', ...h });
    calls.push({ method: 'GET', flavor: 'f1', ...h });
    calls.push({ method: 'GET', flavor: 'f1', key: 'hw:cpu_policy', ...h });
    calls.push({ method: 'GET', flavor: 'f1', key: 'nope', ...h });
    calls.push({ method: 'GET', flavor: 'nope', ...h });
    calls.push({ method: 'DELETE', flavor: 'f1', key: 'hw:cpu_policy', ...h });
    calls.push({ method: 'DELETE', flavor: 'f1', key: 'nope', ...h });
    calls.push({ method: 'DELETE', flavor: 'nope', key: 'x', ...h });
  }
  const body = '{"extra_specs": {"hw:cpu_policy": "x"}}';
  const edgeHeaders: Record<string, string>[] = [
    { 'OpenStack-API-Version': 'compute latest' },
    { 'OpenStack-API-Version': 'compute 2.93' },
    { 'OpenStack-API-Version': 'compute 2.94' },
    { 'OpenStack-API-Version': 'compute 2.0' },
    { 'OpenStack-API-Version': 'compute 3.0' },
    { 'OpenStack-API-Version': 'compute 2.x' },
    { 'OpenStack-API-Version': 'compute 0.5' },
    { 'OpenStack-API-Version': 'compute 2.086' },
    { 'OpenStack-API-Version': 'placement 1.2' },
    { 'OpenStack-API-Version': 'placement 1.2, compute 2.86' },
    { 'X-OpenStack-Nova-API-Version': '2.86' },
    { 'X-OpenStack-Nova-API-Version': '2.85', 'OpenStack-API-Version': 'compute 2.86' },
  ];
  for (const headers of edgeHeaders) {
    calls.push({ method: 'POST', flavor: 'f1', body, headers });
  }
  calls.push(...bodyLimitCalls());
  return calls;
}

const nested = (depth: number) => `{"extra_specs": {"hw:pmu": ${'['.repeat(depth)}${']'.repeat(depth)}}}`;

/** Bodies past the size limit (declared or streamed), deep nesting, and bytes JSON refuses. */
function bodyLimitCalls(): Call[] {
  const calls: Call[] = [];
  const big = `{"extra_specs": {"x": "${'a'.repeat(120_000)}"}}`;
  const justFits = `{"extra_specs": {"x": "${'a'.repeat(114_688 - 26)}"}}`;
  const accepts = [
    undefined,
    'application/json',
    '*/*',
    'text/html',
    'text/*',
    'application/*',
    'text/plain',
    'application/json;q=0.5, text/html;q=0.4',
    'text/html;q=0, application/json',
    'application/json;q=0',
    'application/json;charset=utf-8',
    'APPLICATION/JSON',
    'not a media type',
    '',
  ];
  for (const version of ['2.1', '2.86']) {
    for (const accept of accepts) {
      const headers: Record<string, string> = { 'OpenStack-API-Version': `compute ${version}` };
      if (accept !== undefined) headers.Accept = accept;
      calls.push({ method: 'POST', flavor: 'f1', body: big, headers });
      calls.push({ method: 'POST', flavor: 'f1', body: big, headers, chunked: true });
    }
    const h = { 'OpenStack-API-Version': `compute ${version}` };
    calls.push({ method: 'PUT', flavor: 'f1', key: 'x', body: big, headers: h, chunked: true });
    calls.push({ method: 'DELETE', flavor: 'f1', key: 'x', body: big, headers: h, chunked: true });
    calls.push({ method: 'POST', flavor: 'f1', body: justFits, headers: h });
    calls.push({ method: 'POST', flavor: 'f1', body: justFits, headers: h, chunked: true });
    for (const depth of [10, 500, 900, 2_000, 57_000]) {
      calls.push({ method: 'POST', flavor: 'f1', body: nested(depth), headers: h });
    }
    calls.push({ method: 'POST', flavor: 'f1', body: '\ufeff{"extra_specs": {}}', headers: h });
    calls.push({
      method: 'POST',
      flavor: 'f1',
      body: '{"extra_specs": {"x": 1}}',
      headers: { ...h, Accept: 'text/html' },
    });
  }
  // A malformed version is refused before a streamed body is read; a declared length, before the version.
  const badVersion = { 'OpenStack-API-Version': 'compute 2.x' };
  calls.push({ method: 'POST', flavor: 'f1', body: big, headers: badVersion, chunked: true });
  calls.push({ method: 'POST', flavor: 'f1', body: big, headers: badVersion });
  return calls;
}
