import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  createDiagnostic,
  type Diagnostic,
  describeError,
  isStackspecError,
  type SourceDocument,
  ValidationError,
  validateDocument,
} from '@stackspec/core';
import {
  addExamples,
  addOutputOptions,
  type CliIO,
  createProgram,
  EXIT,
  formatDiagnostics,
  formatList,
  formatObject,
  type HelpExample,
  type OutputOptionValues,
  readPackageVersion,
  runCli,
  stderrColors,
  UsageError,
  usage,
} from '@stackspec/core/cli';
import { readTextFile, readTextInput } from '@stackspec/core/node';
import { type Command, Option } from 'commander';
import { createHttpClient, createLocalClient, type DeployTemplateClient } from './client.js';
import { type DriverStep, explainDeploySteps, type PlanTemplate, type RequestedStep } from './plan.js';
import { type IronicProfile, ironicProfile } from './profile.js';
import { serveDeployTemplates } from './serve.js';
import { createDeployTemplateService } from './service.js';
import type { SqlDeployTemplateStore } from './store/sql-store.js';

/** Fields a user may ask `show`/`list --fields` for (as the OpenStack client offers them). */
export const CLIENT_FIELDS = ['uuid', 'name', 'steps', 'extra', 'created_at', 'updated_at'] as const;

// The column headings of the OpenStack client's list (and what its -c matches); we take field names too.
const LIST_LABELS: Readonly<Record<string, string>> = {
  uuid: 'UUID',
  name: 'Name',
  steps: 'Steps',
  extra: 'Extra',
  created_at: 'Created At',
  updated_at: 'Updated At',
};
const LABEL_FIELDS = new Map(Object.entries(LIST_LABELS).map(([field, label]) => [label, field]));

/** Options of {@link runBaremetalCli} beyond the command line. */
export interface BaremetalCliOptions {
  /** Stops `serve` (it otherwise runs until SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Called once `serve` listens, with its URL. */
  onListening?: (url: string) => void;
}

interface GlobalOptions {
  osEndpoint?: string;
  osAuthType?: string;
  osBaremetalApiVersion?: string;
  osToken?: string;
  databaseUrl?: string;
  dataDir?: string;
  profile: 'latest' | '21.4';
}

/** A failed bounded read as the error the command reports: the file's diagnostic, located. */
function unreadArgument(diagnostic: Diagnostic): ValidationError {
  return new ValidationError(undefined, { code: 'deploy-templates/bad-argument', diagnostics: [diagnostic] });
}

async function readStdin(io: CliIO): Promise<string> {
  if (!io.stdin) return '';
  const r = await readTextInput(io.stdin);
  if (!r.ok) throw unreadArgument(r.diagnostic);
  return r.text;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The value of `--steps` (or any JSON argument) the way the OpenStack client
 * reads it: `-` is standard input, an existing file is parsed as YAML (so
 * JSON works too), anything else as a JSON string. Parse errors in files are
 * reported with file, line and column.
 */
export async function readJsonArgument(value: string, io: CliIO): Promise<unknown> {
  return (await readArgumentDocument(value, io, 'argument'))?.value ?? null;
}

/**
 * {@link readJsonArgument} as a document, so that later problems can point
 * at a line: a file keeps its name, standard input is `<stdin>` and a JSON
 * string is named after its option (`--driver-steps`). `undefined` for an
 * empty standard input.
 */
async function readArgumentDocument(
  value: string,
  io: CliIO,
  option: string,
): Promise<SourceDocument | undefined> {
  let text = value;
  let file = option;
  let format: 'yaml' | 'json' = 'json';
  if (value === '-') {
    text = (await readStdin(io)).trim();
    if (!text) return undefined;
    file = '<stdin>';
    format = 'yaml';
  } else if (isFile(resolve(io.cwd, value))) {
    file = value;
    const r = readTextFile(resolve(io.cwd, value), { file: value });
    if (!r.ok) throw unreadArgument(r.diagnostic);
    text = r.text;
    format = 'yaml';
  }
  // A JSON string is read as the OpenStack client reads it (json.loads: a repeated key keeps its last value).
  const r = validateDocument(text, {
    filename: file,
    format,
    ...(format === 'json' ? { duplicateKeys: 'ignore' as const } : {}),
  });
  if (r.ok) return r.document;
  if (format === 'yaml')
    throw new ValidationError(undefined, {
      code: 'deploy-templates/bad-argument',
      diagnostics: r.diagnostics,
    });
  throw new UsageError(
    `Value '${value}' is not a file and cannot be parsed as JSON: '${r.diagnostics[0]?.message ?? 'invalid JSON'}'`,
    { code: 'deploy-templates/bad-argument' },
  );
}

/** `key=value` pairs of `--extra`: the value is JSON when it parses, a string otherwise. */
export function parseKeyValue(pairs: readonly string[]): [string, unknown][] {
  return pairs.map((pair) => {
    const at = pair.indexOf('=');
    if (at < 0) throw new UsageError(`Attributes must be a list of PATH=VALUE not "${pair}"`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    return [pair.slice(0, at), value];
  });
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

function objectView(t: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(t).sort()) if (key !== 'links') out[key] = t[key];
  return out;
}

/** Where the templates are, as the options and the environment say. */
type Target =
  | { kind: 'endpoint'; url: string }
  | { kind: 'postgres'; url: string }
  | { kind: 'pglite'; dir: string }
  | { kind: 'none' };

const PLACES = [
  { key: 'osEndpoint', option: '--os-endpoint', env: 'OS_ENDPOINT', kind: 'endpoint' },
  { key: 'databaseUrl', option: '--database-url', env: 'STACKSPEC_DATABASE_URL', kind: 'postgres' },
  { key: 'dataDir', option: '--data-dir', env: 'STACKSPEC_DATA_DIR', kind: 'pglite' },
] as const;

function listed(words: readonly string[], last: 'and' | 'or'): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`;
}

/**
 * Where the templates are. An option on the command line wins over every
 * environment variable (an exported OS_ENDPOINT must not send
 * `--data-dir D` to a server); two places given the same way, two options
 * or (with no option) two variables, are refused, since either guess could
 * write to the wrong store. `serve` and `migrate` open a store themselves:
 * for them OS_ENDPOINT does not count, and --os-endpoint is refused.
 */
function resolveTarget(g: GlobalOptions, io: CliIO, forServer = false): Target {
  if (forServer && g.osEndpoint !== undefined)
    usage(
      '--os-endpoint names a server to talk to; this command opens a store itself.',
      'Give --data-dir DIR or --database-url postgres://… instead.',
    );
  const places = PLACES.filter((p) => !forServer || p.kind !== 'endpoint');
  // Given counts even when empty: `--data-dir "$DIR"` with DIR unset must not fall back to a variable.
  const given = places.filter((p) => g[p.key] !== undefined);
  const empty = given.find((p) => g[p.key] === '');
  if (empty) {
    usage(
      `${empty.option} is empty: it needs ${empty.kind === 'pglite' ? 'a directory' : 'a URL'}.`,
      `Check the variable you passed to it, or leave ${empty.option} out to use ${empty.env}.`,
    );
  }
  if (given.length > 1) {
    usage(
      `Give only one of ${listed(
        given.map((p) => p.option),
        'and',
      )}: each names a different place for the templates.`,
    );
  }
  let place = given[0];
  let value = place ? g[place.key] : undefined;
  if (!place) {
    const set = places.filter((p) => io.env[p.env]);
    if (set.length > 1) {
      const names = set.map((p) => p.env);
      usage(
        `${set.length === 2 ? `Both ${listed(names, 'and')} are` : `${listed(names, 'and')} are all`} set, and each names a different place for the templates.`,
        `Choose one with ${listed(
          set.map((p) => p.option),
          'or',
        )} (an option wins over the environment), or unset all but one.`,
      );
    }
    place = set[0];
    value = place ? io.env[place.env] : undefined;
  }
  if (!place || !value) return { kind: 'none' };
  if (place.kind === 'endpoint') return { kind: 'endpoint', url: value };
  if (place.kind === 'postgres') return { kind: 'postgres', url: value };
  return { kind: 'pglite', dir: value };
}

const NOWHERE =
  'Say where the templates are: --os-endpoint URL (a server), --data-dir DIR (embedded) or --database-url postgres://…';

async function openClient(g: GlobalOptions, io: CliIO): Promise<DeployTemplateClient> {
  const target = resolveTarget(g, io);
  const auth = g.osAuthType ?? io.env.OS_AUTH_TYPE;
  if (target.kind === 'endpoint') {
    if (auth && auth !== 'none' && !(g.osToken ?? io.env.OS_TOKEN)) {
      throw new UsageError(
        `Only --os-auth-type none (or a token with --os-token) is supported, not ${auth}.`,
      );
    }
    const token = g.osToken ?? io.env.OS_TOKEN;
    const version = g.osBaremetalApiVersion ?? io.env.OS_BAREMETAL_API_VERSION;
    return createHttpClient({
      endpoint: target.url,
      ...(version ? { version } : {}),
      ...(token ? { headers: { 'X-Auth-Token': token } } : {}),
    });
  }
  const store = await openStore(target, io);
  try {
    // Open it now: a data directory held by another process is refused before any work is done.
    await store.list({ limit: 1 });
  } catch (e) {
    await store.close();
    throw e;
  }
  return createLocalClient(createDeployTemplateService(store, { profile: ironicProfile(g.profile) }));
}

/** Settings of `serve` for the store it opens. */
interface StoreSettings {
  migrate?: boolean;
  maxConnections?: number;
  statementTimeoutMillis?: number;
}

async function openStore(
  target: Target,
  io: CliIO,
  settings: StoreSettings = {},
): Promise<SqlDeployTemplateStore> {
  // A lock taken over from a killed process, a dropped pooled connection: said, not hidden.
  const log = (line: string) => io.stderr.write(`warning: ${line}\n`);
  const migrate = settings.migrate === false ? { migrate: false } : {};
  if (target.kind === 'postgres') {
    const { createPostgresStore } = await import('./adapters/postgres.js');
    return createPostgresStore({
      connectionString: target.url,
      log,
      ...migrate,
      ...(settings.maxConnections ? { maxConnections: settings.maxConnections } : {}),
      ...(settings.statementTimeoutMillis ? { statementTimeoutMillis: settings.statementTimeoutMillis } : {}),
    });
  }
  if (target.kind === 'pglite') {
    const { createPgliteStore } = await loadPglite();
    return createPgliteStore({ dataDir: resolve(io.cwd, target.dir), log, ...migrate });
  }
  throw new UsageError(NOWHERE);
}

// PGlite is loaded by the commands that open it, so that --help, --version
// and commands against a server (--os-endpoint) start without it.
const loadPglite = () => import('./adapters/pglite.js');

/** How a command line names the store it opened, for messages. */
function describeTarget(target: Target): string {
  if (target.kind === 'postgres') return 'PostgreSQL';
  if (target.kind === 'pglite') return `PGlite in ${target.dir}`;
  return 'PGlite in memory';
}

const LOCKED_HINT =
  'Another process has this data directory open. If it is a server, send the command to it instead with --os-endpoint and the URL it printed when it started (for stackspec serve, that URL followed by /baremetal); otherwise wait until it has finished.';
const LOCKED_SERVE_HINT =
  'Another process has this data directory open. If it is a server, clients can use it with --os-endpoint and the URL it printed when it started; stop it before opening the directory from here.';

/** A data directory held by another process, as a usage error with what to do instead. */
function lockedUsage(e: unknown, hint: string): unknown {
  if (!isStackspecError(e) || e.code !== 'store/locked' || e.kind === 'usage') return e;
  return new UsageError(e.message, {
    code: 'store/locked',
    cause: e,
    diagnostics: [createDiagnostic({ code: 'store/locked', message: e.message, hint })],
  });
}

function print(io: CliIO, text: string): void {
  if (text) io.stdout.write(`${text}\n`);
}

async function withClient<T>(
  g: GlobalOptions,
  io: CliIO,
  fn: (c: DeployTemplateClient) => Promise<T>,
): Promise<T> {
  const client = await openClient(g, io);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** The server's message as the OpenStack client prints it: `<message> (HTTP <code>)`. */
function serverMessage(e: unknown): string {
  if (!isStackspecError(e)) return describeError(e);
  return /\(HTTP \d+\)$/.test(e.message) ? e.message : `${e.message} (HTTP ${e.status})`;
}

function defineTemplateCommands(template: Command, io: CliIO, globals: () => GlobalOptions): void {
  const out = (cmd: Command) => cmd.opts() as OutputOptionValues & Record<string, unknown>;
  const printTemplate = (t: Record<string, unknown>, o: OutputOptionValues) =>
    print(
      io,
      formatObject(objectView(t), {
        format: o.format,
        ...(o.column ? { columns: o.column } : {}),
        noindent: o.noindent === true,
        cellStyle: 'python',
      }),
    );
  // `set` and `unset` with nothing to change say so and send no request, as ironicclient does.
  const patchTemplate = async (ident: string, ops: Record<string, unknown>[], verb: 'set' | 'unset') => {
    if (!ops.length) {
      print(io, `Please specify what to ${verb}.`);
      return;
    }
    await withClient(globals(), io, (c) => c.patch(ident, ops));
  };

  addOutputOptions(
    template
      .command('list')
      .description('List deploy templates')
      .option('--limit <n>', 'largest number of templates to return; 0 fetches every page')
      .option('--marker <uuid>', 'start after this template')
      .option('--sort <key[:dir]>', 'sort (client side) by key[:asc|desc], comma separated')
      .addOption(new Option('--long', 'show every field').conflicts('fields'))
      .addOption(
        new Option('--fields <field...>', 'fields to show (repeatable)')
          .choices([...CLIENT_FIELDS])
          .conflicts('long'),
      ),
    'list',
  ).action(async (_o, cmd: Command) => {
    const o = out(cmd);
    const query: Record<string, string> = {};
    let all = false;
    if (o.limit !== undefined) {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 0)
        throw new UsageError(`Expected non-negative --limit, got ${String(o.limit)}`);
      if (limit === 0) all = true;
      else query.limit = String(limit);
    }
    if (o.marker) query.marker = String(o.marker);
    const fields = o.fields as string[] | undefined;
    let columns = ['uuid', 'name'];
    if (o.long) {
      query.detail = 'True';
      columns = ['uuid', 'name', 'steps', 'extra', 'created_at', 'updated_at'];
    } else if (fields?.length) {
      columns = [...new Set(fields)];
      query.fields = columns.join(',');
      query.detail = 'False';
    }
    const rows = await withClient(globals(), io, async (c) => {
      let page = await c.list(query);
      const items = [...page.deploy_templates];
      while (all && page.next) {
        page = await c.next(page.next);
        items.push(...page.deploy_templates);
      }
      return items;
    });
    if (o.sort) {
      const keys = String(o.sort)
        .split(',')
        .map((s) => s.split(':') as [string, string | undefined]);
      for (const [key, dir] of keys) {
        if (!columns.includes(key))
          throw new UsageError(`Sort key "${key}" not one of ${columns.join(', ')}`);
        if (dir !== undefined && dir !== 'asc' && dir !== 'desc') {
          throw new UsageError(`Sort direction "${dir}" is not asc or desc`);
        }
      }
      rows.sort((a, b) => {
        for (const [key, dir] of keys) {
          const x = JSON.stringify(a[key] ?? null);
          const y = JSON.stringify(b[key] ?? null);
          if (x !== y) return (x < y ? -1 : 1) * (dir === 'desc' ? -1 : 1);
        }
        return 0;
      });
    }
    print(
      io,
      formatList(rows, columns, {
        format: o.format,
        ...(o.column ? { columns: o.column.map((c) => LABEL_FIELDS.get(c) ?? c) } : {}),
        noindent: o.noindent === true,
        cellStyle: 'python',
        labels: LIST_LABELS,
      }),
    );
  });

  addOutputOptions(
    template
      .command('show')
      .description('Show a deploy template')
      .argument('<template>', 'name or UUID')
      .addOption(
        new Option('--fields <field...>', 'fields to show (repeatable)').choices([...CLIENT_FIELDS]),
      ),
    'object',
  ).action(async (ident: string, _o, cmd: Command) => {
    const o = out(cmd);
    const t = await withClient(globals(), io, (c) => c.show(ident, o.fields as string[] | undefined));
    printTemplate(t, o);
  });

  addOutputOptions(
    template
      .command('create')
      .description('Create a deploy template')
      .argument('<name>', 'a trait: a standard os-traits name or CUSTOM_…')
      .requiredOption(
        '--steps <steps>',
        'deploy steps: a JSON string, a YAML/JSON file, or - for standard input',
      )
      .option('--uuid <uuid>', 'UUID of the new template')
      .option('--extra <key=value>', 'extra metadata (repeatable)', collect),
    'object',
  ).action(async (name: string, _o, cmd: Command) => {
    const o = out(cmd);
    const body: Record<string, unknown> = { name, steps: await readJsonArgument(String(o.steps), io) };
    if (o.uuid) body.uuid = o.uuid;
    if (o.extra) body.extra = Object.fromEntries(parseKeyValue(o.extra as string[]));
    const t = await withClient(globals(), io, (c) => c.create(body));
    printTemplate(t, o);
  });

  template
    .command('set')
    .description('Set properties of a deploy template')
    .argument('<template>', 'name or UUID')
    .option('--name <name>', 'new name (a trait)')
    .option('--steps <steps>', 'replace the steps: a JSON string, a YAML/JSON file, or -')
    .option('--extra <key=value>', 'extra metadata to set (repeatable)', collect)
    .action(async (ident: string, o: { name?: string; steps?: string; extra?: string[] }) => {
      const ops: Record<string, unknown>[] = [];
      if (o.name !== undefined) ops.push({ op: 'add', path: '/name', value: o.name });
      if (o.steps !== undefined)
        ops.push({ op: 'add', path: '/steps', value: await readJsonArgument(o.steps, io) });
      for (const [key, value] of parseKeyValue(o.extra ?? []))
        ops.push({ op: 'add', path: `/extra/${key}`, value });
      await patchTemplate(ident, ops, 'set');
    });

  template
    .command('unset')
    .description('Unset properties of a deploy template')
    .argument('<template>', 'name or UUID')
    .option('--extra <key>', 'extra metadata to remove (repeatable)', collect)
    .action(async (ident: string, o: { extra?: string[] }) => {
      const ops = (o.extra ?? []).map((key) => ({ op: 'remove', path: `/extra/${key}` }));
      await patchTemplate(ident, ops, 'unset');
    });

  template
    .command('delete')
    .description('Delete deploy templates')
    .argument('<templates...>', 'names or UUIDs')
    .action(async (idents: string[]) => {
      const failures: string[] = [];
      await withClient(globals(), io, async (c) => {
        for (const ident of idents) {
          try {
            await c.delete(ident);
            print(io, `Deleted deploy template ${ident}`);
          } catch (e) {
            failures.push(`Failed to delete deploy template ${ident}: ${serverMessage(e)}`);
          }
        }
      });
      if (failures.length) {
        io.stderr.write(`${failures.join('\n')}\n`);
        throw new ExitSignal(EXIT.findings);
      }
    });

  addOutputOptions(
    template
      .command('plan')
      .description('Show the deploy steps a node would run, from its driver steps and the instance traits')
      .requiredOption(
        '--driver-steps <steps>',
        "the driver's deploy steps: JSON string, YAML/JSON file, or -",
      )
      .requiredOption('--instance-traits <traits>', 'comma-separated traits requested for the instance')
      .option(
        '--node-traits <traits>',
        'comma-separated traits of the node (checked to include the instance traits)',
      )
      .option('--user-steps <steps>', 'deploy steps passed with the provision request')
      .option('--skip-missing', 'drop steps the driver does not report instead of failing'),
    'list',
  ).action(async (_o, cmd: Command) => {
    const o = out(cmd);
    const split = (s: unknown) =>
      String(s ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
    const driverDoc = await readArgumentDocument(String(o.driverSteps), io, '--driver-steps');
    const userDoc = o.userSteps
      ? await readArgumentDocument(String(o.userSteps), io, '--user-steps')
      : undefined;
    const templates = await planTemplates(globals(), io);
    const profile: IronicProfile = ironicProfile(globals().profile);
    let plan: ReturnType<typeof explainDeploySteps>;
    try {
      plan = explainDeploySteps({
        driverSteps: (driverDoc?.value ?? null) as DriverStep[],
        templates,
        instanceTraits: split(o.instanceTraits),
        ...(o.nodeTraits ? { nodeTraits: split(o.nodeTraits) } : {}),
        ...(o.userSteps ? { userSteps: (userDoc?.value ?? null) as RequestedStep[] } : {}),
        skipMissing: o.skipMissing === true,
        profile,
      });
    } catch (e) {
      if (!isStackspecError(e)) throw e;
      const colors = stderrColors(io);
      if (e.code === 'deploy-templates/invalid-plan-input') {
        // The steps given on the command line are malformed: point into the argument (file and line).
        const located = e.diagnostics.map((d) =>
          locateInArgument(d, { driverSteps: driverDoc, userSteps: userDoc }),
        );
        io.stderr.write(`${formatDiagnostics(located, { colors })}\n`);
        throw new ExitSignal(EXIT.usage);
      }
      // Ironic's one-line reason, then each problem with the template and step it concerns.
      io.stderr.write(`${e.message}\n\n${formatDiagnostics(e.diagnostics, { colors })}\n`);
      throw new ExitSignal(EXIT.findings);
    }
    const rows = plan.steps.map((s) => ({
      ...s,
      origin: s.origin.kind === 'template' ? `template ${s.origin.template}` : s.origin.kind,
    }));
    print(
      io,
      formatList(rows, ['priority', 'interface', 'step', 'args', 'origin'], {
        format: o.format,
        ...(o.column ? { columns: o.column } : {}),
        noindent: o.noindent === true,
        cellStyle: 'python',
      }),
    );
  });
}

/**
 * The stored templates in storage order, as the plan needs them. From an
 * embedded store they are read directly, with their real arguments; a
 * server masks secret arguments (`'password': '******'`) like Ironic, and
 * the plan then shows them masked.
 */
async function planTemplates(g: GlobalOptions, io: CliIO): Promise<PlanTemplate[]> {
  const target = resolveTarget(g, io);
  if (target.kind !== 'endpoint') {
    const store = await openStore(target, io);
    try {
      return await store.list();
    } finally {
      await store.close();
    }
  }
  return withClient(g, io, async (c) => {
    let page = await c.list({ detail: 'True' });
    const items = [...page.deploy_templates];
    while (page.next) {
      page = await c.next(page.next);
      items.push(...page.deploy_templates);
    }
    return items as unknown as PlanTemplate[];
  });
}

/** A diagnostic about `/driverSteps/…` or `/userSteps/…`, moved into the argument it came from. */
function locateInArgument(d: Diagnostic, docs: Record<string, SourceDocument | undefined>): Diagnostic {
  const [, key, ...rest] = d.path.split('/');
  const doc = key === undefined ? undefined : docs[key];
  if (!doc) return d;
  const { file: _f, line: _l, column: _c, endLine: _el, endColumn: _ec, ...init } = d;
  return doc.diagnostic({ ...init, path: rest.length ? `/${rest.join('/')}` : '' });
}

/** A whole number from the command line, or a usage error naming the option. */
function wholeNumber(option: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min)
    usage(`${option} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, not ${value}.`);
  return n;
}

/** The store settings of `serve`, checked against the store they apply to. */
function storeSettings(
  target: Target,
  o: { migrate: boolean; poolSize?: string; statementTimeout?: string },
): StoreSettings {
  if (target.kind !== 'postgres' && (o.poolSize !== undefined || o.statementTimeout !== undefined))
    usage(
      `${o.poolSize !== undefined ? '--pool-size' : '--statement-timeout'} applies to PostgreSQL only, and this server keeps templates in ${describeTarget(target)}.`,
      'Give --database-url postgres://… (or STACKSPEC_DATABASE_URL), or leave the option out.',
    );
  if (target.kind === 'none' && !o.migrate)
    usage(
      '--no-migrate needs a database that was migrated before; in memory there is none.',
      'Give --data-dir DIR or --database-url postgres://…, migrated with stackspec-baremetal migrate.',
    );
  return {
    ...(o.migrate ? {} : { migrate: false }),
    ...(o.poolSize !== undefined ? { maxConnections: wholeNumber('--pool-size', o.poolSize, 1) } : {}),
    ...(o.statementTimeout !== undefined
      ? { statementTimeoutMillis: wholeNumber('--statement-timeout', o.statementTimeout, 0) }
      : {}),
  };
}

const T = 'stackspec-baremetal deploy template';

// Two or three examples per command, shown at the end of its --help.
const EXAMPLES: Readonly<Record<string, readonly HelpExample[]>> = {
  '': [
    {
      description: 'Serve the deploy template API, templates kept in a folder',
      command: 'stackspec-baremetal --data-dir ./db serve',
    },
    {
      description: 'List the templates of a running server as JSON',
      command: 'stackspec-baremetal --os-endpoint http://127.0.0.1:6385 deploy template list -f json',
    },
    {
      description: 'The deploy steps a node would run',
      command: `${T.replace('stackspec-baremetal', 'stackspec-baremetal --data-dir ./db')} plan --driver-steps driver-steps.yaml --instance-traits CUSTOM_RAID`,
    },
  ],
  serve: [
    { description: 'Serve from memory on the port Ironic uses', command: 'stackspec-baremetal serve' },
    {
      description: 'Serve templates kept in PostgreSQL, with roles from an authenticating proxy',
      command:
        'STACKSPEC_DATABASE_URL=postgres://ironic@db/ironic stackspec-baremetal serve --auth trusted-headers',
    },
  ],
  migrate: [
    {
      description: 'Create or upgrade the tables as their owner',
      command: 'stackspec-baremetal --database-url postgres://owner@db/ironic migrate',
    },
    {
      description: 'Upgrade a PGlite data directory',
      command: 'stackspec-baremetal --data-dir ./db migrate',
    },
  ],
  list: [
    { description: 'Names and UUIDs', command: `${T} list` },
    { description: 'Every field as JSON', command: `${T} list --long -f json` },
    { description: 'Only the names, one per line', command: `${T} list -f value -c Name` },
  ],
  show: [
    { description: 'One template', command: `${T} show CUSTOM_RAID` },
    { description: 'Its steps as JSON', command: `${T} show CUSTOM_RAID -f json -c steps` },
  ],
  create: [
    { description: 'A template from a steps file', command: `${T} create CUSTOM_RAID --steps raid.yaml` },
    {
      description: 'From standard input, printing the new UUID',
      command: `cat raid.yaml | ${T} create CUSTOM_RAID --steps - -f value -c uuid`,
    },
  ],
  set: [
    { description: 'Replace the steps', command: `${T} set CUSTOM_RAID --steps raid.yaml` },
    { description: 'Set extra metadata', command: `${T} set CUSTOM_RAID --extra owner=ops` },
  ],
  unset: [
    { description: 'Remove extra metadata', command: `${T} unset CUSTOM_RAID --extra owner` },
    {
      description: 'Remove two keys at once',
      command: `${T} unset CUSTOM_RAID --extra owner --extra ticket`,
    },
  ],
  delete: [
    { description: 'Delete one template', command: `${T} delete CUSTOM_RAID` },
    { description: 'Delete several', command: `${T} delete CUSTOM_RAID CUSTOM_BIOS` },
  ],
  plan: [
    {
      description: 'The steps a node runs for the traits an instance asks for',
      command: `${T} plan --driver-steps driver-steps.yaml --instance-traits CUSTOM_RAID,CUSTOM_BIOS`,
    },
    {
      description: 'As JSON, dropping steps the driver does not offer',
      command: `${T} plan --driver-steps driver-steps.yaml --instance-traits CUSTOM_RAID --skip-missing -f json`,
    },
  ],
};

/** Adds {@link EXAMPLES} to a command and its subcommands, by name. */
function addHelpExamples(command: Command, name = ''): void {
  const examples = EXAMPLES[name];
  if (examples) addExamples(command, examples);
  for (const sub of command.commands) if (sub.name() !== 'deploy') addHelpExamples(sub, sub.name());
  const deploy = command.commands.find((c) => c.name() === 'deploy');
  for (const sub of deploy?.commands.find((c) => c.name() === 'template')?.commands ?? [])
    addHelpExamples(sub, sub.name());
}

class ExitSignal extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/**
 * The `stackspec-baremetal` command: `serve` runs the REST API;
 * `deploy template list|show|create|set|unset|delete` mirror
 * `openstack baremetal deploy template …` against a server
 * (`--os-endpoint`) or an embedded store (`--data-dir`, `--database-url`);
 * `deploy template plan` prints the steps a node would run. Returns the
 * exit code: 0 success, 1 a failed operation, 2 a bad command line or a
 * failure of the tool itself.
 *
 * @example
 * await runBaremetalCli(['--data-dir', './db', 'deploy', 'template', 'list', '-f', 'json'], processIO());
 */
export async function runBaremetalCli(
  argv: readonly string[],
  io: CliIO,
  options: BaremetalCliOptions = {},
): Promise<number> {
  const program = createProgram('stackspec-baremetal', io, {
    version: readPackageVersion(import.meta.url, '@stackspec/deploy-templates'),
  })
    .description('Ironic deploy templates: an Ironic-compatible API server and the OpenStack client commands')
    .option('--os-endpoint <url>', 'root URL of an Ironic-compatible server (env OS_ENDPOINT)')
    .option('--os-auth-type <type>', 'only "none" is supported (env OS_AUTH_TYPE)')
    .option('--os-token <token>', 'token sent as X-Auth-Token (env OS_TOKEN)')
    .option(
      '--os-baremetal-api-version <version>',
      'API microversion to request (env OS_BAREMETAL_API_VERSION)',
    )
    .option(
      '--database-url <url>',
      'PostgreSQL URL for the embedded store or the server (env STACKSPEC_DATABASE_URL)',
    )
    .option('--data-dir <dir>', 'PGlite data directory (env STACKSPEC_DATA_DIR)')
    .addOption(
      new Option('--profile <release>', 'Ironic release to imitate')
        .choices(['latest', '21.4'])
        .default('latest'),
    );
  const globals = () => program.opts() as GlobalOptions;

  program
    .command('serve')
    .description('Serve the deploy template API (PGlite in memory unless --data-dir or --database-url)')
    .option('--port <n>', 'TCP port', '6385')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .addOption(
      new Option(
        '--auth <mode>',
        'none: every request is an admin; trusted-headers: roles from X-Roles and OpenStack-System-Scope',
      )
        .choices(['none', 'trusted-headers'])
        .default('none'),
    )
    .option('--max-limit <n>', 'largest page size', '1000')
    .option('--public-url <url>', 'root URL used in links')
    .option(
      '--no-migrate',
      'create nothing: check that `stackspec-baremetal migrate` brought the tables up to date, and fail if not (for a role that may only read and write rows)',
    )
    .option('--pool-size <n>', 'largest number of PostgreSQL connections (default 10)')
    .option(
      '--statement-timeout <ms>',
      "cancel a PostgreSQL statement that runs longer (default: the server's statement_timeout)",
    )
    .action(
      async (o: {
        port: string;
        host: string;
        auth: 'none' | 'trusted-headers';
        maxLimit: string;
        publicUrl?: string;
        migrate: boolean;
        poolSize?: string;
        statementTimeout?: string;
      }) => {
        const g = globals();
        const port = Number(o.port);
        const maxLimit = Number(o.maxLimit);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new UsageError(`--port must be 0..65535, not ${o.port}`);
        if (!Number.isInteger(maxLimit) || maxLimit < 1)
          throw new UsageError(`--max-limit must be a positive integer, not ${o.maxLimit}`);
        const target = resolveTarget(g, io, true);
        const settings = storeSettings(target, o);
        const store =
          target.kind === 'none'
            ? (await loadPglite()).createPgliteStore()
            : await openStore(target, io, settings);
        const where = describeTarget(target);
        let server: Awaited<ReturnType<typeof serveDeployTemplates>>;
        try {
          server = await serveDeployTemplates({
            store,
            port,
            host: o.host,
            auth: o.auth,
            maxLimit,
            profile: ironicProfile(g.profile),
            ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
          });
        } catch (e) {
          // Nothing could listen (a taken port, a bad host): core's usage error names host and port
          // and carries a hint, and runCli prints it and exits 2. serveDeployTemplates has closed
          // the store already.
          if (isStackspecError(e) && e.kind === 'usage') throw e;
          // Another process serves this data directory: say how to reach it instead (exit 2).
          if (isStackspecError(e) && e.code === 'store/locked') throw lockedUsage(e, LOCKED_SERVE_HINT);
          // The store is opened before listening: an unreachable database ends here.
          const code = (e as { code?: unknown }).code;
          if (!isStackspecError(e) && typeof code !== 'string') throw e;
          const hint = isStackspecError(e) ? e.diagnostics[0]?.hint : undefined;
          io.stderr.write(
            `Cannot serve on ${o.host}:${port} (store: ${where}): ${describeError(e)}\n${hint ? `hint: ${hint}\n` : ''}`,
          );
          throw new ExitSignal(EXIT.findings);
        }
        io.stderr.write(
          `Serving Ironic deploy templates on ${server.url} (store: ${where}, auth: ${o.auth}, API 1.1-${ironicProfile(g.profile).maxVersion})\n`,
        );
        options.onListening?.(server.url);
        await new Promise<void>((done) => {
          const stop = () => done();
          if (options.signal) {
            if (options.signal.aborted) return done();
            options.signal.addEventListener('abort', stop, { once: true });
          } else {
            process.once('SIGINT', stop);
            process.once('SIGTERM', stop);
          }
        });
        await server.close();
      },
    );

  program
    .command('migrate')
    .description(
      'Create or upgrade the deploy template tables of --database-url or --data-dir, then exit; run it as the owner, so that serve --no-migrate needs no right to create',
    )
    .action(async () => {
      const target = resolveTarget(globals(), io, true);
      if (target.kind === 'none')
        usage(
          'Say which database to migrate: --database-url postgres://… (or STACKSPEC_DATABASE_URL) or --data-dir DIR (or STACKSPEC_DATA_DIR).',
        );
      const where = describeTarget(target);
      const store = await openStore(target, io);
      try {
        const done = await store.migrate();
        print(
          io,
          done.applied.length
            ? `Migrated the deploy template tables (store: ${where}, schema ${done.schema}) to version ${done.version}: applied ${done.applied.map((m) => `${m.version} (${m.name})`).join(', ')}.`
            : `The deploy template tables (store: ${where}, schema ${done.schema}) are at version ${done.version} already; nothing to do.`,
        );
      } catch (e) {
        if (isStackspecError(e) && e.code === 'store/locked') throw lockedUsage(e, LOCKED_SERVE_HINT);
        if (!isStackspecError(e)) throw e;
        const hint = e.diagnostics[0]?.hint;
        io.stderr.write(`Cannot migrate (store: ${where}): ${e.message}\n${hint ? `hint: ${hint}\n` : ''}`);
        throw new ExitSignal(EXIT.findings);
      } finally {
        await store.close();
      }
    });

  const template = program
    .command('deploy')
    .description('Deploy resources')
    .command('template')
    .description('Deploy templates');
  defineTemplateCommands(template, io, globals);
  addHelpExamples(program);

  return runCli(
    async () => {
      try {
        await program.parseAsync([...argv], { from: 'user' });
        return EXIT.ok;
      } catch (e) {
        if (e instanceof ExitSignal) return e.code;
        throw lockedUsage(e, LOCKED_HINT);
      }
    },
    io,
    { errorStyle: 'openstack' },
  );
}
