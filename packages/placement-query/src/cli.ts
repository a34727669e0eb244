import { resolve } from 'node:path';
import {
  createDiagnostic,
  DEFAULT_MAX_BYTES,
  isStackspecError,
  NotFoundError,
  parseDocument,
  ValidationError,
  validateWithSchema,
} from '@stackspec/core';
import {
  addExamples,
  addFormatOption,
  addOutputOptions,
  type CliIO,
  createProgram,
  createProgress,
  deprecatedOption,
  EXIT,
  formatList,
  formatObject,
  type OutputOptionValues,
  readPackageVersion,
  UsageError,
  usage,
  warnDeprecated,
} from '@stackspec/core/cli';
import { readTextFile, startServer } from '@stackspec/core/node';
import { z } from 'zod';
import {
  findAllocationCandidates,
  GENERATION_STRATEGIES,
  type GenerationStrategy,
  SERVER_MAX_ALLOCATION_CANDIDATES,
} from './engine/candidates.js';
import { listResourceProviders } from './engine/providers.js';
import { renderCandidates, renderProviderList } from './engine/render.js';
import { addExplainCommand } from './explain-command.js';
import { type AggregateInfo, FlavorSchema, flavorToRequest } from './flavor.js';
import { withHealthz } from './http/health.js';
import { createPlacementHandler } from './http/service.js';
import { MAX_MICROVERSION } from './microversion.js';
import { parseInventory } from './model/inventory-file.js';
import { applyPlan, inventoryPlan } from './model/plan.js';
import { createProviderStore, type ProviderStore } from './model/store.js';
import { parsePlacementQuery } from './parse.js';
import type { QueryEndpoint } from './request.js';
import { serializePlacementQuery } from './serialize.js';
import { EPHEMERAL_HELP, openServedStore } from './serve-store.js';
import { addStoreCommands } from './store-commands.js';
import { addStoreOptions, type StoreOptionValues } from './store-place.js';

/** Hooks for tests: a signal that stops `serve`, a fetch for `load`. */
export interface PlacementCliOptions {
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Called once `serve` listens, with its URL. */
  onListening?: (url: string) => void;
}

const MAX_INVENTORY_MB = 'max-inventory-mb';

/**
 * A file named on the command line, read with core's bounded reader up to
 * `maxBytes` (default the loader's 10 MiB): a FIFO, a device or a larger
 * file is refused before it is read, as a usage error (exit 2) carrying
 * core's `fs/*` diagnostic.
 */
function readText(
  io: CliIO,
  file: string,
  maxBytes = DEFAULT_MAX_BYTES,
  tooLargeHint = 'Split the file: it is read up to 10 MiB.',
): string {
  const read = readTextFile(resolve(io.cwd, file), { maxBytes, file });
  if (read.ok) return read.text;
  const diagnostic =
    read.diagnostic.code === 'fs/too-large' ? { ...read.diagnostic, hint: tooLargeHint } : read.diagnostic;
  throw new UsageError(`Cannot read ${file}.`, { diagnostics: [diagnostic] });
}

function maxBytesOf(mb: number | undefined): { maxBytes?: number } {
  return mb === undefined ? {} : { maxBytes: mb * 1024 * 1024 };
}

function readInventoryText(io: CliIO, file: string, mb: number | undefined): string {
  const hint = `Raise the limit with --${MAX_INVENTORY_MB} N (in MiB).`;
  return readText(io, file, maxBytesOf(mb).maxBytes, hint);
}

function loadStore(io: CliIO, file: string | undefined, mb?: number): ProviderStore {
  if (!file) return createProviderStore();
  return parseInventory(readInventoryText(io, file, mb), { filename: file, ...maxBytesOf(mb) }).store;
}

function endpointOf(value: string): QueryEndpoint {
  const v = value.replace(/^\/+/, '');
  if (v === 'resource_providers' || v === 'allocation_candidates') return v;
  usage(`Unknown endpoint ${value}; use allocation_candidates or resource_providers.`);
}

function splitQuery(text: string): { endpoint?: QueryEndpoint; query: string } {
  const m = /^\/?(resource_providers|allocation_candidates)\?(.*)$/.exec(text);
  return m ? { endpoint: m[1] as QueryEndpoint, query: m[2] as string } : { query: text.replace(/^\?/, '') };
}

function print(io: CliIO, text: string): void {
  io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Placement's answer to a query as the command line shows it: its message
 * with the HTTP status and the parameter at fault, e.g.
 * `Requested resource VCPU requires amount >= 1. Got: 0. (HTTP 400, parameter resources1)`.
 */
function queryFailure(e: unknown): never {
  if (!isStackspecError(e) || (e.status !== 400 && e.status !== 404)) throw e;
  const d = e.diagnostics[0];
  const parameter = d?.path ? d.path.slice(1).replaceAll('~1', '/').replaceAll('~0', '~') : '';
  const message = `${e.message} (HTTP ${e.status}${parameter ? `, parameter ${parameter}` : ''})`;
  const options = {
    code: e.code,
    diagnostics: [createDiagnostic({ ...(d ?? { code: e.code, path: '' }), message })],
  };
  throw e.status === 404 ? new NotFoundError(message, options) : new ValidationError(message, options);
}

function guarded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    queryFailure(e);
  }
}

// A flavor file: Nova's flavor fields; extra spec values written as bare
// integers in YAML (`resources:VCPU: 4`) are read as the strings Nova stores.
const FlavorFileSchema = FlavorSchema.extend({
  extra_specs: z
    .record(
      z.string(),
      z.union([z.string(), z.number().int().transform(String)], {
        error: 'must be a string (quote it in YAML: "…")',
      }),
    )
    .default({}),
});

function readFlavorFile(io: CliIO, file: string): z.output<typeof FlavorFileSchema> {
  const doc = parseDocument(readText(io, file), { filename: file });
  const r = validateWithSchema(FlavorFileSchema, doc, { area: 'placement-query/flavor' });
  if (!r.ok) {
    throw new ValidationError(undefined, {
      code: 'placement-query/invalid-flavor',
      diagnostics: r.diagnostics,
    });
  }
  return r.value;
}

const AggregatesFileSchema = z.array(
  z.object({
    uuid: z.string(),
    name: z.string().optional(),
    metadata: z.record(z.string(), z.string()).default({}),
  }),
);

/**
 * The `stackspec-placement` command: `parse`, `query`, `from-flavor`,
 * `serve` and `load`. Returns the exit code (0 ok, 1 a 400 or other
 * finding, 2 bad usage; errors it throws are turned into 1 or 2 by
 * `runCli`, 2 for a failure of the tool itself); never exits the process
 * itself.
 */
export async function runPlacementCli(
  argv: readonly string[],
  io: CliIO,
  options: PlacementCliOptions = {},
): Promise<number> {
  const program = createProgram('stackspec-placement', io, {
    version: readPackageVersion(import.meta.url, '@stackspec/placement-query'),
  }).description("OpenStack Placement's query language, evaluated over in-memory provider trees.");
  addExamples(program, [
    {
      description: 'Check a query the way Placement parses it',
      command: "stackspec-placement parse 'resources=VCPU:2,MEMORY_MB:2048&required=!CUSTOM_X'",
    },
    {
      description: 'Answer a query over an inventory file, as JSON',
      command: "stackspec-placement query -i cloud.yaml 'resources=VCPU:4,MEMORY_MB:8192' -f json",
    },
    {
      description: 'Load an inventory into a running Placement',
      command: 'stackspec-placement load -i cloud.yaml --url http://127.0.0.1:8778',
    },
  ]);

  const parse = program
    .command('parse')
    .description("Parse a query the way Placement does and show the typed request, or Placement's 400.")
    .argument(
      '<query>',
      'the query string, optionally prefixed with /allocation_candidates? or /resource_providers?',
    )
    .option(
      '-e, --endpoint <endpoint>',
      'allocation_candidates or resource_providers',
      'allocation_candidates',
    )
    .option(
      '-m, --microversion <version>',
      `Placement microversion (1.0-${MAX_MICROVERSION} or latest)`,
      MAX_MICROVERSION,
    );
  addFormatOption(parse, ['json', 'yaml'], 'json');
  addExamples(parse, [
    {
      description: 'The typed request of an allocation candidates query',
      command: "stackspec-placement parse 'resources=VCPU:2,MEMORY_MB:2048&required=!CUSTOM_X'",
    },
    {
      description: 'A resource providers query at an older microversion, as YAML',
      command: "stackspec-placement parse '/resource_providers?required=!CUSTOM_X' -m 1.22 -f yaml",
    },
  ]);
  parse.action((text: string, opts: { endpoint: string; microversion: string; format: 'json' | 'yaml' }) => {
    const split = splitQuery(text);
    const endpoint = split.endpoint ?? endpointOf(opts.endpoint);
    const version = microversionOf(opts.microversion);
    const request = guarded(() => parsePlacementQuery(endpoint, split.query, version));
    print(
      io,
      opts.format === 'yaml'
        ? formatObject(JSON.parse(JSON.stringify(request)), { format: 'yaml' })
        : JSON.stringify(request, null, 2),
    );
  });

  const query = addOutputOptions(
    program
      .command('query')
      .description('Answer GET /resource_providers or GET /allocation_candidates over an inventory file.')
      .requiredOption('-i, --inventory <file>', 'inventory file (YAML or JSON)')
      .option(`--${MAX_INVENTORY_MB} <mb>`, 'largest inventory file read, in MiB (default 10)', toInt)
      .argument('<query>', 'the query string, optionally prefixed with the endpoint path')
      .option(
        '-e, --endpoint <endpoint>',
        'allocation_candidates or resource_providers',
        'allocation_candidates',
      )
      .option('-m, --microversion <version>', 'Placement microversion', MAX_MICROVERSION),
    'list',
  );
  addExamples(query, [
    {
      description: 'Allocation candidates kept off the hosts with a trait',
      command: "stackspec-placement query -i cloud.yaml 'resources=VCPU:4&required=!CUSTOM_WINDOWS_LICENSED'",
    },
    {
      description: 'Names of the providers with a trait, one per line',
      command:
        "stackspec-placement query -i cloud.yaml '/resource_providers?required=CUSTOM_X' -f value -c name",
    },
    {
      description: "Placement's own JSON body",
      command: "stackspec-placement query -i cloud.yaml 'resources=VCPU:1' -f json",
    },
  ]);
  query.action(
    (
      text: string,
      opts: OutputOptionValues & {
        inventory: string;
        endpoint: string;
        microversion: string;
        maxInventoryMb?: number;
      },
    ) => {
      const store = loadStore(io, opts.inventory, opts.maxInventoryMb);
      const split = splitQuery(text);
      const endpoint = split.endpoint ?? endpointOf(opts.endpoint);
      const version = microversionOf(opts.microversion);
      const request = guarded(() => parsePlacementQuery(endpoint, split.query, version));
      const fmt = {
        format: opts.format,
        ...(opts.column ? { columns: opts.column } : {}),
        ...(opts.noindent ? { noindent: true } : {}),
      };
      if (request.endpoint === 'resource_providers') {
        const body = renderProviderList(
          guarded(() => listResourceProviders(store, request)),
          version,
        );
        if (opts.format === 'json' && !opts.column)
          return print(io, JSON.stringify(body, null, opts.noindent ? undefined : 2));
        const rows = body.resource_providers.map((p) => ({
          uuid: p.uuid,
          name: p.name,
          generation: p.generation,
          root_provider_uuid: p.root_provider_uuid ?? null,
          parent_provider_uuid: p.parent_provider_uuid ?? null,
        }));
        return print(
          io,
          formatList(rows, ['uuid', 'name', 'generation', 'root_provider_uuid', 'parent_provider_uuid'], fmt),
        );
      }
      const result = guarded(() => findAllocationCandidates(store, request));
      if (opts.format === 'json' && !opts.column) {
        return print(
          io,
          JSON.stringify(renderCandidates(result, version), null, opts.noindent ? undefined : 2),
        );
      }
      const rows = result.candidates.map((c, i) => ({
        '#': i + 1,
        allocations: [...c.allocations]
          .map(([p, inner]) => `${p.name}: ${[...inner].map(([rc, n]) => `${rc}=${n}`).join(',')}`)
          .join('; '),
        mappings: [...c.mappings]
          .map(([s, set]) => `${s || '(unsuffixed)'}=${[...set].map((p) => p.name).join(',')}`)
          .join('; '),
        anchor: c.anchor.name,
      }));
      print(io, formatList(rows, ['#', 'allocations', 'mappings', 'anchor'], fmt));
    },
  );

  const fromFlavor = program
    .command('from-flavor')
    .description('Build the allocation-candidates query Nova would send for a flavor.')
    .option(
      '--flavor <file>',
      'flavor as YAML/JSON: vcpus, memory_mb, root_gb, ephemeral_gb, swap, extra_specs',
    )
    .option('--vcpus <n>', 'vCPUs', toInt)
    .option('--ram <mb>', 'memory in MiB', toInt)
    .option('--disk <gb>', 'root disk in GiB', toInt)
    .option('--ephemeral <gb>', 'ephemeral disk in GiB', toInt)
    .option('--swap <mb>', 'swap in MiB', toInt)
    .option('-p, --property <key=value>', 'an extra spec (repeatable)', collect, [])
    .option(
      '--image-property <key=value>',
      'an image property such as hw_firmware_type=uefi or trait:HW_CPU_X86_AVX2=required (repeatable)',
      collect,
      [],
    )
    .option('--aggregates <file>', 'aggregates with metadata: [{uuid, metadata: {k: v}}]')
    .option('--required-member-prefix <prefix>', 'e.g. reservation:')
    .option('--default-forbidden-prefix <prefix>', 'e.g. reservation: (repeatable)', collect, [])
    .option('--isolate-aggregates', "Nova's enable_isolated_aggregate_filtering")
    .option('--limit <n>', 'limit (default 1000; 0 for none)', toInt)
    .option('-m, --microversion <version>', 'Placement microversion', MAX_MICROVERSION);
  addFormatOption(
    fromFlavor,
    ['text', 'json'],
    'text',
    'text: the query line (warnings on standard error); json: the typed request, the query and warnings',
  );
  fromFlavor.addOption(deprecatedOption('--json', '-f json'));
  addExamples(fromFlavor, [
    {
      description: 'The query for a flavor file',
      command: 'stackspec-placement from-flavor --flavor flavor.yaml',
    },
    {
      description: 'A flavor given on the command line, with an extra spec',
      command: 'stackspec-placement from-flavor --vcpus 4 --ram 8192 --disk 40 -p trait:CUSTOM_X=required',
    },
    {
      description: 'The typed request and warnings as JSON',
      command: 'stackspec-placement from-flavor --flavor flavor.yaml -f json',
    },
  ]);
  fromFlavor.action(
    (opts: {
      flavor?: string;
      vcpus?: number;
      ram?: number;
      disk?: number;
      ephemeral?: number;
      swap?: number;
      property: string[];
      imageProperty: string[];
      aggregates?: string;
      requiredMemberPrefix?: string;
      defaultForbiddenPrefix: string[];
      isolateAggregates?: boolean;
      limit?: number;
      microversion: string;
      format: 'text' | 'json';
      json?: boolean;
    }) => {
      if (opts.json) warnDeprecated(io, '--json', '-f json');
      const json = opts.json === true || opts.format === 'json';
      const base = opts.flavor ? readFlavorFile(io, opts.flavor) : undefined;
      const pairs = (values: string[], option: string, example: string) => {
        const out: Record<string, string> = {};
        for (const p of values) {
          const i = p.indexOf('=');
          if (i <= 0) usage(`${option} expects key=value, got ${p}`, `for example ${option} ${example}`);
          out[p.slice(0, i)] = p.slice(i + 1);
        }
        return out;
      };
      const extra = {
        ...base?.extra_specs,
        ...pairs(opts.property, '--property', 'resources:VCPU=2'),
      };
      const image = pairs(opts.imageProperty, '--image-property', 'hw_firmware_type=uefi');
      const flavor = {
        ...base,
        ...(opts.vcpus !== undefined ? { vcpus: opts.vcpus } : {}),
        ...(opts.ram !== undefined ? { memory_mb: opts.ram } : {}),
        ...(opts.disk !== undefined ? { root_gb: opts.disk } : {}),
        ...(opts.ephemeral !== undefined ? { ephemeral_gb: opts.ephemeral } : {}),
        ...(opts.swap !== undefined ? { swap: opts.swap } : {}),
        extra_specs: extra,
      };
      let aggregates: AggregateInfo[] = [];
      if (opts.aggregates) {
        const doc = parseDocument(readText(io, opts.aggregates), { filename: opts.aggregates });
        const r = AggregatesFileSchema.safeParse(doc.value);
        if (!r.success) usage(`${opts.aggregates} must be a list of {uuid, metadata}`);
        aggregates = r.data;
      }
      const { request, diagnostics } = flavorToRequest(flavor, {
        microversion: microversionOf(opts.microversion),
        aggregates,
        image,
        ...(opts.requiredMemberPrefix ? { requiredMemberPrefix: opts.requiredMemberPrefix } : {}),
        defaultForbiddenMemberPrefixes: opts.defaultForbiddenPrefix,
        isolateAggregates: Boolean(opts.isolateAggregates),
        ...(opts.limit !== undefined ? { limit: opts.limit === 0 ? null : opts.limit } : {}),
      });
      if (json)
        print(io, JSON.stringify({ request, query: serializePlacementQuery(request), diagnostics }, null, 2));
      else {
        for (const d of diagnostics) io.stderr.write(`warning: ${d.message} (${d.path})\n`);
        print(io, `/allocation_candidates?${serializePlacementQuery(request)}`);
      }
    },
  );

  const serve = program
    .command('serve')
    .summary('Serve a Placement-compatible API, its state kept in PGlite, PostgreSQL or memory.')
    .description(
      `Serve a Placement-compatible API. Its state is kept in a database: PGlite in a data directory (the default, ./placement-data, locked to one process) or PostgreSQL (--database-url), which any number of servers share; reads are answered from memory, kept equal to the database. GET /healthz says whether the server is current.\n\n${EPHEMERAL_HELP}`,
    )
    .option('-i, --inventory <file>', 'inventory file to start from (loaded when the database is empty)')
    .option(`--${MAX_INVENTORY_MB} <mb>`, 'largest inventory file read, in MiB (default 10)', toInt)
    .option('--port <n>', 'TCP port (0 picks a free one)', toInt, 8778)
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option(
      '--auth <mode>',
      'none; noauth2 (require X-Auth-Token like Placement); or trusted-headers (roles from X-Roles as listed, so send implied ones too: admin,member,reader; scope from OpenStack-System-Scope, project from X-Project-Id; set by an authenticating proxy), checked against Placement 8.0 default policy as it ships: writes need admin in any scope, reads admin or reader with system scope (OpenStack-System-Scope: all), GET /usages also a reader of that project',
      'none',
    )
    .option(
      '--enforce-new-defaults',
      "with --auth trusted-headers, check only Placement's new default rules (oslo.policy's enforce_new_defaults): writes need admin with system scope, reads reader with system scope, GET /usages also a reader of that project",
    )
    .option('--prefix <path>', 'mount the API under this path, such as /placement', '')
    .option(
      '--max-allocation-candidates <n>',
      `Placement's [placement]max_allocation_candidates: most candidates generated per request, -1 for no bound (default ${SERVER_MAX_ALLOCATION_CANDIDATES}; Placement's default is -1)`,
      toCap,
    )
    .option(
      '--allocation-candidates-generation-strategy <strategy>',
      "Placement's [placement]allocation_candidates_generation_strategy: depth-first (default) or breadth-first",
    )
    .option(
      '--optimize-for-wide-provider-trees',
      "Placement's [workarounds]optimize_for_wide_provider_trees: prune combinations over capacity early",
    );
  addStoreOptions(serve, 'serve');
  addExamples(serve, [
    {
      description: 'Serve an inventory on the port Placement uses, kept in ./placement-data',
      command: 'stackspec-placement serve -i cloud.yaml --port 8778',
    },
    {
      description: 'One of several servers over one PostgreSQL',
      command:
        'STACKSPEC_DATABASE_URL=postgres://placement@db/placement stackspec-placement serve --host 0.0.0.0 --no-migrate',
    },
    {
      description: 'Serve an inventory from memory only, behind a proxy that sets roles',
      command: 'stackspec-placement serve -i cloud.yaml --ephemeral --auth trusted-headers',
    },
  ]);
  serve.action(
    async (
      opts: StoreOptionValues & {
        inventory?: string;
        maxInventoryMb?: number;
        port: number;
        host: string;
        auth: string;
        enforceNewDefaults?: boolean;
        prefix: string;
        maxAllocationCandidates?: number;
        allocationCandidatesGenerationStrategy?: string;
        optimizeForWideProviderTrees?: boolean;
      },
    ) => {
      if (opts.auth !== 'none' && opts.auth !== 'noauth2' && opts.auth !== 'trusted-headers')
        usage(`--auth must be none, noauth2 or trusted-headers, not ${opts.auth}`);
      if (opts.enforceNewDefaults && opts.auth !== 'trusted-headers')
        usage(
          '--enforce-new-defaults changes the policy checked under --auth trusted-headers; other modes check no policy.',
          'Add --auth trusted-headers, or drop --enforce-new-defaults.',
        );
      const strategy = opts.allocationCandidatesGenerationStrategy ?? 'depth-first';
      if (!(GENERATION_STRATEGIES as readonly string[]).includes(strategy))
        usage(
          `--allocation-candidates-generation-strategy must be depth-first or breadth-first, not ${strategy}`,
        );
      const file = opts.inventory;
      const { placement, lines } = await openServedStore(
        opts,
        io,
        file
          ? {
              file,
              load: () =>
                parseInventory(readInventoryText(io, file, opts.maxInventoryMb), {
                  filename: file,
                  ...maxBytesOf(opts.maxInventoryMb),
                }),
            }
          : undefined,
      );
      const handler = createPlacementHandler({
        placement,
        auth: opts.auth as 'none' | 'noauth2' | 'trusted-headers',
        ...(opts.enforceNewDefaults ? { enforceNewDefaults: true } : {}),
        prefix: opts.prefix,
        ...(opts.maxAllocationCandidates !== undefined
          ? { maxAllocationCandidates: opts.maxAllocationCandidates }
          : {}),
        allocationCandidatesGenerationStrategy: strategy as GenerationStrategy,
        optimizeForWideProviderTrees: opts.optimizeForWideProviderTrees === true,
      });
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer(withHealthz(handler, placement), {
          port: opts.port,
          host: opts.host,
          oversizedHead: handler.oversizedHead,
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (e) {
        await placement.close();
        throw e;
      }
      io.stderr.write(
        `Placement API (microversions 1.0-${MAX_MICROVERSION}) on ${server.url}${opts.prefix} with ${placement.store.providerCount} providers\n${lines.join('\n')}\n`,
      );
      options.onListening?.(server.url);
      await new Promise<void>((done) => {
        const stop = () =>
          void server
            .close()
            .then(() => placement.close())
            .then(done);
        options.signal?.addEventListener('abort', stop, { once: true });
        if (!options.signal) {
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        }
      });
    },
  );

  const load = program
    .command('load')
    .description("Load an inventory file into any Placement (ours or OpenStack's) through its REST API.")
    .requiredOption('-i, --inventory <file>', 'inventory file')
    .option(`--${MAX_INVENTORY_MB} <mb>`, 'largest inventory file read, in MiB (default 10)', toInt)
    .requiredOption('--url <url>', 'Placement endpoint, such as http://127.0.0.1:8778')
    .option('--token <token>', 'X-Auth-Token to send', 'admin');
  addFormatOption(load, ['text', 'json'], 'text');
  addExamples(load, [
    {
      description: 'Load an inventory into a Placement on this machine',
      command: 'stackspec-placement load -i cloud.yaml --url http://127.0.0.1:8778',
    },
    {
      description: 'Into an OpenStack Placement with a token, reporting as JSON',
      command:
        'stackspec-placement load -i cloud.yaml --url https://placement.example.org --token "$OS_TOKEN" -f json',
    },
  ]);
  load.action(
    async (opts: {
      inventory: string;
      maxInventoryMb?: number;
      url: string;
      token: string;
      format: 'text' | 'json';
    }) => {
      const { inventory } = parseInventory(readInventoryText(io, opts.inventory, opts.maxInventoryMb), {
        filename: opts.inventory,
        ...maxBytesOf(opts.maxInventoryMb),
      });
      const doFetch = options.fetch ?? fetch;
      const base = opts.url.replace(/\/+$/, '');
      const steps = inventoryPlan(inventory);
      // One request per step; a large inventory takes a while, so say how far it got (on a terminal).
      const progress = createProgress(io.stderr, { env: io.env, now: io.now });
      let sent = 0;
      await applyPlan(async (method, path, body) => {
        sent += 1;
        progress.update(`loading: request ${sent}/${steps.length}, ${method} ${path}`);
        const r = await doFetch(`${base}${path}`, {
          method,
          headers: {
            'x-auth-token': opts.token,
            'openstack-api-version': 'placement 1.39',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        const text = await r.text();
        return { status: r.status, body: text ? JSON.parse(text) : null };
      }, steps)
        .catch((e: unknown) => {
          if (isStackspecError(e)) throw e;
          const message = `Loading failed: ${(e as Error).message}`;
          throw new ValidationError(message, {
            code: 'placement-query/load-failed',
            diagnostics: [createDiagnostic({ code: 'placement-query/load-failed', message })],
          });
        })
        .finally(() => progress.done());
      const loaded = {
        providers: inventory.providers.length,
        consumers: inventory.consumers.length,
        requests: steps.length,
      };
      print(
        io,
        opts.format === 'json'
          ? JSON.stringify(loaded, null, 2)
          : `Loaded ${loaded.providers} providers and ${loaded.consumers} consumers in ${loaded.requests} requests.`,
      );
    },
  );

  addStoreCommands(program, io, {
    loadInventory: (file, mb) =>
      parseInventory(readInventoryText(io, file, mb), { filename: file, ...maxBytesOf(mb) }).inventory,
    maxInventoryOption: {
      flags: `--${MAX_INVENTORY_MB} <mb>`,
      description: 'largest inventory file read, in MiB (default 10)',
      parse: toInt,
    },
  });

  addExplainCommand(program, io, {
    loadInventory: (file, mb) =>
      parseInventory(readInventoryText(io, file, mb), { filename: file, ...maxBytesOf(mb) }),
    parseQuery: (text, endpoint, microversion) => {
      const split = splitQuery(text);
      const at = split.endpoint ?? endpointOf(endpoint);
      const version = microversionOf(microversion);
      return guarded(() => parsePlacementQuery(at, split.query, version));
    },
    guarded,
    maxInventoryOption: {
      flags: `--${MAX_INVENTORY_MB} <mb>`,
      description: 'largest inventory file read, in MiB (default 10)',
      parse: toInt,
    },
  });

  await program.parseAsync([...argv], { from: 'user' });
  return EXIT.ok;

  function microversionOf(v: string): string {
    if (v === 'latest') return MAX_MICROVERSION;
    if (!/^1\.(?:[0-9]|[1-2][0-9]|3[0-9])$/.test(v))
      usage(`Microversion ${v} is not one Placement serves (1.0 to ${MAX_MICROVERSION}).`);
    return v;
  }
}

function toCap(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < -1) usage(`Expected -1 or a non-negative integer, got ${value}`);
  return n;
}

function toInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) usage(`Expected a non-negative integer, got ${value}`);
  return n;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
