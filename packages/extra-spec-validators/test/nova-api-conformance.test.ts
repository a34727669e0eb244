// Conformance of the HTTP handler (behaviour: 'nova', zed catalog) with Nova
// 26's real controller, run in-process by test/nova-api.py: status codes,
// fault bodies (byte for byte), and the version, Vary and Content-Type
// headers, at microversions 2.1, 2.85 and 2.86 and around the edges.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable, PYTHON } from '../../../test-support/python.js';
import { builtinRegistry, createExtraSpecsHandler, createMemoryFlavorStore } from '../src/index.js';
import { type Call, corpus } from './api-corpus.js';

const here = dirname(fileURLToPath(import.meta.url));

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

function runNova(calls: readonly Call[]): Answer[] {
  const r = spawnSync(PYTHON, [join(here, 'nova-api.py')], {
    input: `${calls.map((c) => JSON.stringify(c)).join('\n')}\n`,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`the Nova API oracle failed: ${r.error?.message ?? r.stderr}`);
  return r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Answer);
}

async function runOurs(call: Call): Promise<Answer> {
  const store = createMemoryFlavorStore({ f1: { 'hw:cpu_policy': 'shared' } });
  const handler = createExtraSpecsHandler({
    store,
    registry: builtinRegistry('zed'),
    behaviour: 'nova',
    prefix: '/v2.1',
  });
  const path = `/v2.1/flavors/${call.flavor}/os-extra_specs${call.key !== undefined ? `/${call.key}` : ''}`;
  // A string body has no Content-Length of its own; a server would see one unless the upload is chunked.
  const length: Record<string, string> =
    call.body !== undefined && !call.chunked
      ? { 'Content-Length': String(Buffer.byteLength(call.body)) }
      : {};
  const res = await handler(
    new Request(`http://localhost${path}`, {
      method: call.method,
      headers: { 'Content-Type': 'application/json', ...length, ...call.headers },
      ...(call.body !== undefined ? { body: call.body } : {}),
    }),
  );
  const headers: Record<string, string> = {};
  for (const name of ['openstack-api-version', 'x-openstack-nova-api-version', 'vary', 'content-type']) {
    const v = res.headers.get(name);
    if (v !== null) headers[name] = v;
  }
  return { status: res.status, body: await res.text(), headers };
}

describe.runIf(
  oracleAvailable('nova', ['nova.api.openstack.compute.flavors_extraspecs', 'oslo_middleware.sizelimit']),
)("conformance of the HTTP handler with Nova 26's controller", () => {
  const calls = corpus();
  let nova: Answer[];
  beforeAll(() => {
    nova = runNova(calls);
  });

  it('answers every request with the same status, body and headers', async () => {
    expect(nova).toHaveLength(calls.length);
    const differences: string[] = [];
    for (let i = 0; i < calls.length; i += 1) {
      const ours = await runOurs(calls[i] as Call);
      const theirs = nova[i] as Answer;
      if (
        JSON.stringify(ours) !==
        JSON.stringify({ ...theirs, headers: sortKeys(theirs.headers, ours.headers) })
      ) {
        differences.push(
          `${JSON.stringify(calls[i])}\n  nova: ${JSON.stringify(theirs)}\n  ours: ${JSON.stringify(ours)}`,
        );
      }
    }
    expect(differences.slice(0, 10), `${differences.length} differences`).toEqual([]);
    expect(calls.length).toBeGreaterThan(250);
  });

  it('covers the interesting outcomes', () => {
    const statuses = new Set(nova.map((a) => a.status));
    expect([...statuses].sort()).toEqual([200, 400, 404, 406, 413, 500]);
    const atValidation = nova.filter((a) => a.body.includes('Validation failed;'));
    expect(atValidation.length).toBeGreaterThan(10);
  });
});

function sortKeys(theirs: Record<string, string>, ours: Record<string, string>): Record<string, string> {
  // Header order is not significant; compare in our order.
  const out: Record<string, string> = {};
  for (const k of Object.keys(ours)) if (k in theirs) out[k] = theirs[k] as string;
  for (const k of Object.keys(theirs)) if (!(k in out)) out[k] = theirs[k] as string;
  return out;
}
