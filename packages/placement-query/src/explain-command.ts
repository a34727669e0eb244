import {
  addExamples,
  addFormatOption,
  type CliIO,
  createColors,
  type createProgram,
  usage,
} from '@stackspec/core/cli';
import { explainPlacementQuery } from './engine/explain.js';
import { formatExplanationText } from './engine/explain-text.js';
import { MAX_MICROVERSION } from './microversion.js';
import type { ResolvedInventory } from './model/inventory-file.js';
import type { ProviderStore } from './model/store.js';
import type { PlacementQuery } from './request.js';

/** What `explain` takes from the rest of `stackspec-placement`: its readers and Placement's 400s. */
export interface ExplainCommandContext {
  /** Reads and resolves an inventory file (located errors, size limit in MiB). */
  loadInventory(
    file: string,
    maxMb: number | undefined,
  ): { store: ProviderStore; inventory: ResolvedInventory };
  /** Parses the query the way `query` does, raising Placement's 400 with its parameter. */
  parseQuery(text: string, endpoint: string, microversion: string): PlacementQuery;
  /** Runs `fn`, turning an evaluation 400 into the command line's form of it. */
  guarded<T>(fn: () => T): T;
  /** The option `--max-inventory-mb` and its help, as the other commands spell it. */
  maxInventoryOption: { flags: string; description: string; parse: (value: string) => number };
}

function toCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) usage(`Expected a non-negative integer, got ${value}`);
  return n;
}

/**
 * Adds `explain QUERY -i INVENTORY [-f text|json]` to `stackspec-placement`:
 * why a query matches what it does (see `explainPlacementQuery`). Exits 0
 * once it has explained, whatever the answer; 1 for Placement's 400 or an
 * inventory file with problems (reported at their lines); 2 for an unusable
 * command line or an inventory file that cannot be read.
 */
export function addExplainCommand(
  program: ReturnType<typeof createProgram>,
  io: CliIO,
  context: ExplainCommandContext,
): void {
  const command = program
    .command('explain')
    .description(
      'Say why a query matches what it does: how many providers each constraint kept, in the order the engine applies them, and which providers the last one turned away, and why.',
    )
    .argument('<query>', 'the query string, optionally prefixed with the endpoint path')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML or JSON)')
    .option(
      context.maxInventoryOption.flags,
      context.maxInventoryOption.description,
      context.maxInventoryOption.parse,
    )
    .option(
      '-e, --endpoint <endpoint>',
      'allocation_candidates or resource_providers',
      'allocation_candidates',
    )
    .option('-m, --microversion <version>', 'Placement microversion', MAX_MICROVERSION)
    .option('--examples <n>', 'providers named for the stage that kept none (default 3)', toCount);
  addFormatOption(command, ['text', 'json'], 'text');
  addExamples(command, [
    {
      description: 'Why no host has room for a large VM',
      command: "stackspec-placement explain -i cloud.yaml 'resources=VCPU:64,MEMORY_MB:262144'",
    },
    {
      description: 'The same as JSON, for a script',
      command:
        "stackspec-placement explain -i cloud.yaml 'resources=VCPU:64&required=HW_CPU_X86_AVX512F' -f json",
    },
    {
      description: 'Which filter of a provider list leaves nothing',
      command:
        "stackspec-placement explain -i cloud.yaml '/resource_providers?required=CUSTOM_GPU&member_of=!in:AGG'",
    },
  ]);
  command.action(
    (
      text: string,
      opts: {
        inventory: string;
        maxInventoryMb?: number;
        endpoint: string;
        microversion: string;
        examples?: number;
        format: 'text' | 'json';
      },
    ) => {
      const { store, inventory } = context.loadInventory(opts.inventory, opts.maxInventoryMb);
      const query = context.parseQuery(text, opts.endpoint, opts.microversion);
      const aggregateNames = new Map(inventory.aggregates.map((a) => [a.uuid, a.alias]));
      const explanation = context.guarded(() =>
        explainPlacementQuery(store, query, {
          aggregateNames,
          ...(opts.examples !== undefined ? { examples: opts.examples } : {}),
        }),
      );
      const out =
        opts.format === 'json'
          ? JSON.stringify(explanation, null, 2)
          : formatExplanationText(explanation, { colors: createColors({ stream: io.stdout, env: io.env }) });
      io.stdout.write(`${out}\n`);
    },
  );
}
