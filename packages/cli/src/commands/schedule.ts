import { didYouMean, suggest } from '@stackspec/core';
import { type CliIO, type Colors, createColors, EXIT, formatDiagnostics, usage } from '@stackspec/core/cli';
import { formatExplanationText } from '@stackspec/placement-query';
import type { Command } from 'commander';
import { Option } from 'commander';
import { loadCloud } from '../cloud.js';
import { loadConfigForFolder } from '../config.js';
import { registryFor } from '../extra-spec-registry.js';
import { type ScheduleResult, schedule } from '../schedule.js';
import { addConfigOptions } from './config-options.js';

interface ScheduleOptions {
  flavor: string;
  inventory?: string;
  isolateAggregates?: boolean;
  node?: string;
  format: 'text' | 'json';
  config?: string;
  mode?: 'strict' | 'permissive' | 'off' | 'nova';
  release?: string;
  requiredMemberPrefix?: string;
  defaultForbiddenPrefix?: string[];
  color?: boolean;
  explain?: boolean;
}

function where(paths: readonly string[]): string {
  return paths.length === 1 && paths[0] === '.' ? 'the current folder' : paths.join(', ');
}

function args(a: Record<string, unknown>): string {
  const text = JSON.stringify(a);
  return text === '{}' ? '' : `  ${text.length > 100 ? `${text.slice(0, 97)}...` : text}`;
}

/** The walk as text: one section per stage, stopping where it failed. */
export function formatScheduleText(r: ScheduleResult, flavorName: string, c: Colors): string {
  const out: string[] = [];
  const ok = (s: string) => c.green(`✔ ${s}`);
  const bad = (s: string) => c.red(`✖ ${s}`);
  out.push(c.bold(`1. Flavor ${flavorName}: extra specs`));
  const errors = r.extraSpecs.filter((d) => d.severity === 'error');
  out.push(errors.length ? bad(`${errors.length} invalid extra spec(s)`) : ok('extra specs are valid'));
  if (r.extraSpecs.length) out.push(formatDiagnostics(r.extraSpecs, { colors: c, summary: false }));
  if (r.stage === 'extra-specs') return out.join('\n');

  out.push('', c.bold('2. Placement request'));
  if (!r.request) {
    out.push(bad('the flavor cannot be turned into a Placement request'));
    if (r.requestDiagnostics.length)
      out.push(formatDiagnostics(r.requestDiagnostics, { colors: c, summary: false }));
    return out.join('\n');
  }
  out.push(`GET /allocation_candidates?${r.query}`);
  if (r.requestDiagnostics.length)
    out.push(formatDiagnostics(r.requestDiagnostics, { colors: c, summary: false }));

  out.push('', c.bold('3. Allocation candidates'));
  if (r.candidateDiagnostics.some((d) => d.severity === 'error')) {
    out.push(bad('the Placement engine gave up on this request'));
    out.push(formatDiagnostics(r.candidateDiagnostics, { colors: c, summary: false }));
    return out.join('\n');
  }
  if (r.candidateDiagnostics.length)
    out.push(formatDiagnostics(r.candidateDiagnostics, { colors: c, summary: false }));
  // Why Placement answers what it does: always when nothing fits, on --explain otherwise.
  const why = r.explanation
    ? formatExplanationText(r.explanation, { colors: c, header: false, verdict: false, indent: '  ' })
    : undefined;
  if (!r.candidates.length) {
    const empty = r.explanation?.emptiedBy;
    const where =
      empty?.group === undefined
        ? ''
        : empty.group === ''
          ? ' (unsuffixed group)'
          : ` (group ${empty.group})`;
    out.push(bad(`no compute node can host this flavor${empty ? `: ${empty.label}${where} kept none` : ''}`));
    if (why) out.push('', why);
    return out.join('\n');
  }
  for (const cand of r.candidates) {
    const uses = Object.entries(cand.allocations)
      .map(
        ([p, classes]) =>
          `${p}: ${Object.entries(classes)
            .map(([rc, n]) => `${rc}=${n}`)
            .join(', ')}`,
      )
      .join('; ');
    out.push(`  ${cand.name === r.node?.name ? c.green('→') : ' '} ${cand.name}  ${c.dim(uses)}`);
  }
  if (why) out.push('', why);
  if (!r.node) {
    out.push(bad('the requested node is not among the candidates'));
    return out.join('\n');
  }
  out.push('', c.bold(`4. Node ${r.node.name} (${r.node.uuid})`));
  out.push(`  instance traits: ${r.instanceTraits.join(', ') || c.dim('none')}`);
  out.push(`  node traits:     ${r.node.traits.join(', ') || c.dim('none')}`);

  out.push('', c.bold('5. Deploy steps'));
  if (!r.bareMetal) {
    out.push(c.dim('  not a bare-metal flavor: Ironic deploy templates do not apply to virtual machines'));
    return out.join('\n');
  }
  if (r.planError) {
    out.push(bad(r.planError.reason));
    return out.join('\n');
  }
  const plan = r.plan;
  if (plan) {
    out.push(`  matching deploy templates: ${plan.matchedTemplates.join(', ') || c.dim('none')}`);
    plan.steps.forEach((s, i) => {
      const origin = s.origin.kind === 'template' ? `template ${s.origin.template}` : s.origin.kind;
      out.push(
        `  ${String(i + 1).padStart(2)}. ${`${s.interface}.${s.step}`.padEnd(32)} priority ${String(s.priority).padStart(3)}  ${c.dim(`(${origin})`)}${c.dim(args(s.args))}`,
      );
    });
  }
  return out.join('\n');
}

/** Adds `stackspec schedule --flavor NAME [PATHS…]` to a program. */
export function addScheduleCommand(program: Command, io: CliIO, setExit: (code: number) => void) {
  addConfigOptions(
    program
      .command('schedule')
      .description(
        'walk a flavor through extra spec validation, Placement and deploy templates to the steps a node runs',
      )
      .argument(
        '[paths...]',
        'folders and files describing the cloud (flavors, inventory, deploy templates, driver steps)',
        ['.'],
      )
      .requiredOption('--flavor <name>', 'the flavor to schedule')
      .option('--inventory <file>', 'the Placement inventory (default: the one found among PATHS)')
      .option('--node <name>', 'pick this node among the candidates (default: the first by name)')
      .addOption(
        new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'),
      ),
  )
    .option('--release <name>', 'Nova release whose extra spec catalog applies')
    .option(
      '--required-member-prefix <prefix>',
      "aggregate metadata prefix a flavor must match (the spec's reservation flow)",
    )
    .option(
      '--default-forbidden-prefix <prefix>',
      'aggregate metadata prefix kept off unless the flavor asks for it (repeatable)',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option(
      '--isolate-aggregates',
      "keep flavors off aggregates whose trait:T=required metadata they do not require (Nova's enable_isolated_aggregate_filtering; also schedule.isolateAggregates in the config)",
    )
    .option('--no-isolate-aggregates', 'turn isolated aggregate filtering off whatever the config says')
    .option('--no-color', 'never colour the output')
    .option(
      '--explain',
      'say how many providers each Placement constraint kept, even when some node fits (always done when none does)',
    )
    .action(async (paths: string[], opts: ScheduleOptions) => {
      const loaded = await loadConfigForFolder(io.cwd, paths[0] ?? '.', opts.config);
      const cloud = await loadCloud(paths, io.cwd, opts.inventory ? { inventory: opts.inventory } : {});
      const c = createColors({
        stream: io.stdout,
        env: io.env,
        ...(opts.color === false ? { force: false } : {}),
      });
      if (cloud.diagnostics.length) {
        io.stderr.write(`${formatDiagnostics(cloud.diagnostics, { colors: c })}\n`);
      }
      const flavor = cloud.flavors.find((f) => f.name === opts.flavor);
      if (!flavor) {
        const names = cloud.flavors.map((f) => f.name);
        usage(
          `No flavor named ${opts.flavor} was found in ${where(paths)}.`,
          didYouMean(suggest(opts.flavor, names)) ??
            (names.length ? `Flavors found: ${names.join(', ')}.` : 'No flavor files were found.'),
        );
      }
      if (!cloud.inventory) {
        const rejected = cloud.rejected.find((r) => r.kind === 'placement-inventory');
        if (rejected)
          usage(
            `The Placement inventory ${rejected.file} cannot be used; its problems are listed above.`,
            'Fix them (stackspec check shows them all), or name another file with --inventory.',
          );
        usage(
          `No Placement inventory file was found in ${where(paths)}.`,
          cloud.diagnostics.some((d) => d.severity === 'error')
            ? 'Some files could not be read (listed above); if one of them is the inventory, fix it, or name one with --inventory FILE.'
            : 'Add a file with a providers list, or name one with --inventory FILE.',
        );
      }
      const config = structuredClone(loaded.config);
      if (opts.release) config.extraSpecs.release = opts.release;
      const choice = await registryFor(config, loaded.baseDir);
      if (choice.pending.length)
        io.stderr.write(`${formatDiagnostics(choice.pending.splice(0), { colors: c })}\n`);
      const result = schedule({
        ...(choice.registry ? { registry: choice.registry } : {}),
        aggregates: cloud.inventory.aggregates,
        flavor,
        store: cloud.inventory.store,
        templates: cloud.templates,
        driverSteps: cloud.driverSteps?.steps ?? [],
        mode: opts.mode ?? config.extraSpecs.mode,
        ...(opts.release || config.extraSpecs.release
          ? { release: opts.release ?? config.extraSpecs.release }
          : {}),
        ...(opts.node ? { node: opts.node } : {}),
        ...((opts.requiredMemberPrefix ?? config.schedule.requiredMemberPrefix)
          ? { requiredMemberPrefix: opts.requiredMemberPrefix ?? config.schedule.requiredMemberPrefix }
          : {}),
        defaultForbiddenMemberPrefixes:
          opts.defaultForbiddenPrefix ?? config.schedule.defaultForbiddenMemberPrefixes,
        isolateAggregates: opts.isolateAggregates ?? config.schedule.isolateAggregates,
        ...(opts.explain ? { explain: true } : {}),
      });
      if (opts.format === 'json') io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else io.stdout.write(`${formatScheduleText(result, flavor.name, c)}\n`);
      if (result.bareMetal && !cloud.driverSteps) {
        io.stderr.write(
          `${c.yellow('warning:')} No driver deploy steps file was found in ${where(paths)}.\n` +
            `${c.dim('hint:')} Ironic merges the deploy templates with the deploy steps the node's driver offers; add a file with a driver_steps list.\n`,
        );
      }
      setExit(result.ok ? EXIT.ok : EXIT.findings);
    });
}
