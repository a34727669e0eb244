// The real OpenStack client (python3-osc-placement) against our server: a
// client written for Placement must work unchanged.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { type RunningServer, startServer } from '@stackspec/core/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../test-support/python.js';
import { createPlacementHandler } from '../src/http/service.js';
import { loadInventory } from '../src/model/inventory-file.js';

const run = promisify(execFile);
const AGG_A = '0000000a-0000-4000-8000-00000000000a';
const CONSUMER = '11111111-2222-4333-8444-555555555555';

describe.runIf(oracleAvailable('osc-placement', ['osc_placement', 'openstackclient']))(
  'osc-placement against our server',
  () => {
    let server: RunningServer;
    const handler = createPlacementHandler({
      store: loadInventory(
        readFileSync(new URL('../src/fixtures/spec-example.yaml', import.meta.url), 'utf8'),
      ).store,
    });

    beforeAll(async () => {
      server = await startServer(handler, { port: 0 });
    });
    afterAll(async () => {
      await server?.close();
    });

    async function osc(...args: string[]): Promise<unknown> {
      const { stdout } = await run(
        '/usr/bin/openstack',
        [
          '--os-auth-type',
          'none',
          '--os-endpoint',
          server.url,
          '--os-placement-api-version',
          '1.39',
          ...args,
          '-f',
          'json',
        ],
        { env: { ...process.env, OS_CLOUD: '' }, timeout: 60_000 },
      );
      return stdout.trim() ? JSON.parse(stdout) : undefined;
    }

    it('lists providers and filters them by aggregate', async () => {
      const all = (await osc('resource', 'provider', 'list')) as { name: string }[];
      expect(all.map((p) => p.name).sort()).toEqual([
        'cn1',
        'cn2',
        'numa1_1',
        'numa1_2',
        'numa2_1',
        'numa2_2',
        'ss1',
        'ss2',
      ]);
      const inAgg = (await osc('resource', 'provider', 'list', '--member-of', AGG_A)) as { name: string }[];
      expect(inAgg.map((p) => p.name)).toEqual(['cn1']);
    }, 60_000);

    it('builds a provider with inventory, traits and aggregates, allocates and reads usage back', async () => {
      const created = (await osc('resource', 'provider', 'create', 'osc-rp')) as {
        uuid: string;
        generation: number;
      };
      expect(created.generation).toBe(0);
      const inv = (await osc(
        'resource',
        'provider',
        'inventory',
        'set',
        created.uuid,
        '--resource',
        'VCPU=8',
        '--resource',
        'MEMORY_MB=4096',
      )) as {
        resource_class: string;
        total: number;
      }[];
      expect(inv.map((i) => [i.resource_class, i.total]).sort()).toEqual([
        ['MEMORY_MB', 4096],
        ['VCPU', 8],
      ]);
      await run('/usr/bin/openstack', [
        '--os-auth-type',
        'none',
        '--os-endpoint',
        server.url,
        '--os-placement-api-version',
        '1.39',
        'trait',
        'create',
        'CUSTOM_OSC',
      ]);
      const traits = (await osc(
        'resource',
        'provider',
        'trait',
        'set',
        created.uuid,
        '--trait',
        'CUSTOM_OSC',
      )) as { name: string }[];
      expect(traits).toEqual([{ name: 'CUSTOM_OSC' }]);
      const aggs = (await osc(
        'resource',
        'provider',
        'aggregate',
        'set',
        created.uuid,
        '--aggregate',
        AGG_A,
        '--generation',
        '2',
      )) as {
        uuid: string;
      }[];
      expect(aggs.map((a) => a.uuid)).toEqual([AGG_A]);
      const candidates = (await osc(
        'allocation',
        'candidate',
        'list',
        '--resource',
        'VCPU=8',
        '--required',
        'CUSTOM_OSC',
      )) as {
        'resource provider': string;
      }[];
      expect(candidates.map((c) => c['resource provider'])).toEqual([created.uuid]);
      await osc(
        'resource',
        'provider',
        'allocation',
        'set',
        CONSUMER,
        '--allocation',
        `rp=${created.uuid},VCPU=2`,
        '--project-id',
        'p',
        '--user-id',
        'u',
        '--consumer-type',
        'INSTANCE',
      );
      const usage = (await osc('resource', 'provider', 'usage', 'show', created.uuid)) as {
        resource_class: string;
        usage: number;
      }[];
      expect(usage.find((u) => u.resource_class === 'VCPU')?.usage).toBe(2);
      expect(handler.store.provider(created.uuid)?.usages.get('VCPU')).toBe(2);
    }, 120_000);

    it('asks for candidates in any of several aggregates', async () => {
      const AGG_C = '0000000c-0000-4000-8000-00000000000c';
      const c = (await osc(
        'allocation',
        'candidate',
        'list',
        '--resource',
        'DISK_GB=10',
        '--member-of',
        `${AGG_A},${AGG_C}`,
      )) as {
        'resource provider': string;
      }[];
      expect(c.map((x) => handler.store.provider(x['resource provider'])?.name)).toEqual(['ss2']);
    }, 60_000);

    it("passes on Placement's 400 when the client sends in:!agg", async () => {
      // osc-placement prefixes every --member-of value with in:, so a forbidden
      // aggregate arrives as in:!<uuid>, which Placement itself rejects.
      await expect(
        osc('allocation', 'candidate', 'list', '--resource', 'VCPU=1', '--member-of', `!${AGG_A}`),
      ).rejects.toThrow(
        /Expected 'member_of' parameter to contain valid UUID\(s\)\. Got: !0000000a.*\(HTTP 400\)/,
      );
    }, 60_000);
  },
);
