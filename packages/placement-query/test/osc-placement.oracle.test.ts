// The real OpenStack client (python3-osc-placement) against our server: a
// client written for Placement must work unchanged.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { type RunningServer, startServer } from '@stackspec/core/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleAvailable } from '../../../test-support/python.js';
import { createPlacementHandler } from '../src/http/service.js';
import { parseInventory } from '../src/model/inventory-file.js';

const run = promisify(execFile);
const AGG_A = '0000000a-0000-4000-8000-00000000000a';
const CONSUMER = '11111111-2222-4333-8444-555555555555';

describe.runIf(oracleAvailable('osc-placement', ['osc_placement', 'openstackclient']))(
  'osc-placement against our server',
  () => {
    let server: RunningServer;
    const handler = createPlacementHandler({
      store: parseInventory(
        readFileSync(new URL('../src/fixtures/spec-example.yaml', import.meta.url), 'utf8'),
      ).store,
    });

    beforeAll(async () => {
      server = await startServer(handler, { port: 0 });
    });
    afterAll(async () => {
      await server?.close();
    });

    /** Runs `openstack` against our server; commands without a formatter (delete) give text. */
    async function oscText(...args: string[]): Promise<string> {
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
        ],
        { env: { ...process.env, OS_CLOUD: '' }, timeout: 60_000 },
      );
      return stdout;
    }

    async function osc(...args: string[]): Promise<unknown> {
      const stdout = await oscText(...args, '-f', 'json');
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
      await oscText('trait', 'create', 'CUSTOM_OSC');
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

    it('creates a child under a parent, sets and deletes one inventory class, deletes providers', async () => {
      const parent = (await osc('resource', 'provider', 'create', 'osc-parent')) as { uuid: string };
      const child = (await osc(
        'resource',
        'provider',
        'create',
        'osc-child',
        '--parent-provider',
        parent.uuid,
      )) as { uuid: string; parent_provider_uuid: string; root_provider_uuid: string };
      expect(child).toMatchObject({ parent_provider_uuid: parent.uuid, root_provider_uuid: parent.uuid });
      // `inventory class set` updates a class (on a class the provider lacks, Placement answers 400 too).
      await osc('resource', 'provider', 'inventory', 'set', child.uuid, '--resource', 'VCPU=2');
      const cls = (await osc(
        'resource',
        'provider',
        'inventory',
        'class',
        'set',
        child.uuid,
        'VCPU',
        '--total',
        '4',
      )) as { total: number };
      expect(cls.total).toBe(4);
      const shown = (await osc('resource', 'provider', 'inventory', 'show', child.uuid, 'VCPU')) as {
        total: number;
        max_unit: number;
      };
      expect(shown).toMatchObject({ total: 4, max_unit: 2147483647 });
      await oscText('resource', 'provider', 'inventory', 'delete', child.uuid, '--resource-class', 'VCPU');
      expect(handler.store.provider(child.uuid)?.inventories.size).toBe(0);
      // The parent cannot go before its child: Placement's 409 reaches the user.
      await expect(oscText('resource', 'provider', 'delete', parent.uuid)).rejects.toThrow(
        /It has child resource providers/,
      );
      await oscText('resource', 'provider', 'delete', child.uuid);
      await oscText('resource', 'provider', 'delete', parent.uuid);
      expect(handler.store.provider(parent.uuid)).toBeUndefined();
    }, 120_000);

    it('creates, shows and deletes custom resource classes and traits', async () => {
      await oscText('resource', 'class', 'create', 'CUSTOM_OSC_GPU');
      expect(await osc('resource', 'class', 'show', 'CUSTOM_OSC_GPU')).toEqual({ name: 'CUSTOM_OSC_GPU' });
      const classes = (await osc('resource', 'class', 'list')) as { name: string }[];
      expect(classes.map((c) => c.name)).toContain('CUSTOM_OSC_GPU');
      await oscText('resource', 'class', 'delete', 'CUSTOM_OSC_GPU');
      expect(handler.store.hasResourceClass('CUSTOM_OSC_GPU')).toBe(false);
      await oscText('trait', 'create', 'CUSTOM_OSC_GONE');
      expect(handler.store.hasTrait('CUSTOM_OSC_GONE')).toBe(true);
      await oscText('trait', 'delete', 'CUSTOM_OSC_GONE');
      expect(handler.store.hasTrait('CUSTOM_OSC_GONE')).toBe(false);
      await expect(oscText('trait', 'delete', 'HW_CPU_X86_AVX')).rejects.toThrow(
        /Cannot delete standard trait HW_CPU_X86_AVX/,
      );
    }, 120_000);

    it('shows, unsets and deletes allocations and reports usage per project', async () => {
      const ss1 = handler.store.providerByName('ss1')?.uuid as string;
      const numa = handler.store.providerByName('numa2_1')?.uuid as string;
      const consumer = '99999999-2222-4333-8444-555555555555';
      await osc(
        'resource',
        'provider',
        'allocation',
        'set',
        consumer,
        '--allocation',
        `rp=${numa},VCPU=1`,
        '--allocation',
        `rp=${ss1},DISK_GB=10`,
        '--project-id',
        'proj-usage',
        '--user-id',
        'u',
        '--consumer-type',
        'INSTANCE',
      );
      const shown = (await osc('resource', 'provider', 'allocation', 'show', consumer)) as {
        resource_provider: string;
        resources: Record<string, number>;
      }[];
      expect(shown.map((a) => [a.resource_provider, a.resources]).sort()).toEqual(
        [
          [numa, { VCPU: 1 }],
          [ss1, { DISK_GB: 10 }],
        ].sort(),
      );
      // From 1.38 usages come grouped by consumer type, and osc prints a row per type.
      const usage = (await osc('resource', 'usage', 'show', 'proj-usage')) as {
        resource_class: string;
        usage: unknown;
      }[];
      expect(usage).toEqual([
        { resource_class: 'INSTANCE', usage: { VCPU: 1, DISK_GB: 10, consumer_count: 1 } },
      ]);
      await osc('resource', 'provider', 'allocation', 'unset', consumer, '--provider', ss1);
      expect([...(handler.store.consumer(consumer)?.allocations.keys() ?? [])]).toEqual([numa]);
      await oscText('resource', 'provider', 'allocation', 'delete', consumer);
      expect(handler.store.consumer(consumer)).toBeUndefined();
      expect(handler.store.provider(ss1)?.usages.get('DISK_GB') ?? 0).toBe(0);
    }, 120_000);
  },
);
