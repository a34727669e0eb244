import { heatErrorBody as coreHeatErrorBody } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createCapabilitiesHandler,
  FindRequestSchema,
  heatErrorBody,
  ResolveRequestSchema,
  SummaryRequestSchema,
} from './http.js';

const handler = createCapabilitiesHandler({ maxBodyBytes: 100_000 });
const BASE = 'http://heat.example/v1/tenant';

function post(path: string, body: unknown) {
  return handler(
    new Request(`${BASE}/${path}`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    }),
  );
}

const FILES = {
  'file:///tht/puppet/controller.yaml':
    'heat_template_version: 2015-10-15\ncapabilities:\n  deployment: puppet\n  resource_type: OS::TripleO::Controller\n',
  'file:///tht/docker/controller.yaml': {
    heat_template_version: '2015-10-15',
    capabilities: { deployment: 'docker', resource_type: ['OS::TripleO::Controller'] },
  },
  'file:///tht/plain.yaml': 'heat_template_version: 2015-10-15\n',
  'file:///tht/env.yaml':
    'requires: {deployment: puppet}\nresource_registry:\n  OS::TripleO::Controller: [puppet/controller.yaml, docker/controller.yaml]\n  OS::Plain: plain.yaml\n',
  'file:///tht/chef.yaml': 'requires: {deployment: chef}\n',
};

describe('createCapabilitiesHandler', () => {
  it('lists template versions the way Heat does', async () => {
    const res = await handler(new Request(`${BASE}/template_versions`));
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      template_versions: { version: string; type: string; aliases: string[] }[];
    };
    expect(body.template_versions).toContainEqual({
      version: 'heat_template_version.2021-04-16',
      type: 'hot',
      aliases: ['heat_template_version.wallaby'],
    });
    expect(body.template_versions).toContainEqual({
      version: 'AWSTemplateFormatVersion.2010-09-09',
      type: 'cfn',
      aliases: [],
    });
    expect(body.template_versions).toHaveLength(13);
  });

  it('finds templates by capability among uploaded files', async () => {
    const res = await post('capabilities/find', {
      files: FILES,
      capabilities: { resource_type: 'OS::TripleO::Controller' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      templates: [
        {
          name: 'file:///tht/docker/controller.yaml',
          version: '2015-10-15',
          capabilities: { deployment: ['docker'], resource_type: ['OS::TripleO::Controller'] },
        },
        {
          name: 'file:///tht/puppet/controller.yaml',
          version: '2015-10-15',
          capabilities: { deployment: ['puppet'], resource_type: ['OS::TripleO::Controller'] },
        },
      ],
    });
  });

  it('summarises capabilities of chosen templates', async () => {
    const res = await post('capabilities/summary', {
      files: FILES,
      templates: ['file:///tht/puppet/controller.yaml', 'file:///tht/docker/controller.yaml'],
    });
    expect(await res.json()).toEqual({
      labels: { deployment: ['puppet', 'docker'] },
      resource_types: {
        'OS::TripleO::Controller': [
          'file:///tht/puppet/controller.yaml',
          'file:///tht/docker/controller.yaml',
        ],
      },
    });
  });

  it('resolves environments and answers with the uploaded names', async () => {
    const res = await post('capabilities/resolve', {
      files: FILES,
      environment_files: ['file:///tht/env.yaml'],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.choices).toEqual({ 'OS::TripleO::Controller': 'file:///tht/puppet/controller.yaml' });
    expect(body.environment).toEqual({
      resource_registry: {
        'OS::TripleO::Controller': 'file:///tht/puppet/controller.yaml',
        'OS::Plain': 'file:///tht/plain.yaml',
      },
    });
  });

  it('answers 400 with a Heat error body naming the type that did not resolve', async () => {
    const res = await post('capabilities/resolve', {
      files: FILES,
      environment_files: ['file:///tht/env.yaml', 'file:///tht/chef.yaml'],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ReturnType<typeof heatErrorBody>;
    expect(body).toMatchObject({
      code: 400,
      title: 'Bad Request',
      error: { type: 'CapabilitiesResolutionFailed', traceback: null },
    });
    expect(body.error.message).toContain(
      'No candidate for OS::TripleO::Controller satisfies requires (deployment: chef)',
    );
    expect(body.error.diagnostics?.[0]).toMatchObject({ file: '/tht/env.yaml', line: 3 });
  });

  it('answers 400 for an invalid environment with Heat message and type', async () => {
    const res = await post('capabilities/resolve', {
      files: { 'e.yaml': 'resource_registry:\n  resources:\n    s: {hooks: bad}\n' },
      environment_files: ['e.yaml'],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ReturnType<typeof heatErrorBody>;
    expect(body.error.type).toBe('InvalidBreakPointHook');
    expect(body.error.message).toMatch(/^Invalid hook type "bad" for resource breakpoint/);
  });

  it('rejects bad bodies with located schema errors, unknown files, and oversize bodies', async () => {
    const bad = await post('capabilities/find', { files: FILES, capability: {} });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ReturnType<typeof heatErrorBody>).error.message).toMatch(/capability/);
    const json = await post('capabilities/find', '{"files": ');
    expect(json.status).toBe(400);
    const unknown = await post('capabilities/summary', { files: FILES, templates: ['nope.yaml'] });
    expect(unknown.status).toBe(400);
    const missingEnv = await post('capabilities/resolve', { files: FILES, environment_files: ['nope.yaml'] });
    expect(missingEnv.status).toBe(400);
    const big = await post('capabilities/find', { files: { 'a.yaml': 'x'.repeat(200_000) } });
    expect(big.status).toBe(413);
  });

  it('answers 404 for unknown paths and 405 with Allow for the wrong method', async () => {
    expect((await handler(new Request(`${BASE}/stacks`))).status).toBe(404);
    expect((await handler(new Request('http://heat.example/other'))).status).toBe(404);
    const res = await handler(new Request(`${BASE}/capabilities/find`));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('request schemas', () => {
  it('are published as JSON Schema', async () => {
    const schemas = {
      find: z.toJSONSchema(FindRequestSchema),
      summary: z.toJSONSchema(SummaryRequestSchema),
      resolve: z.toJSONSchema(ResolveRequestSchema),
    };
    await expect(`${JSON.stringify(schemas, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/request-schemas.json',
    );
  });
});

describe('heatErrorBody', () => {
  it("is core's function, kept under its first name", () => {
    expect(heatErrorBody).toBe(coreHeatErrorBody);
  });

  it('has the shape of a Heat fault', () => {
    expect(heatErrorBody(404, 'NotFound', 'The resource could not be found.')).toEqual({
      code: 404,
      title: 'Not Found',
      explanation: 'The resource could not be found.',
      error: { type: 'NotFound', message: 'The resource could not be found.', traceback: null },
    });
    expect(heatErrorBody(599, 'X', 'y').title).toBe('HTTP 599');
  });
});
