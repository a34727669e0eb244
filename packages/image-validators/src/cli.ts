import { resolve } from 'node:path';
import { didYouMean, SpecError, suggest } from '@stackspec/core';
import {
  addExamples,
  addFormatOption,
  type CliIO,
  createColors,
  createProgram,
  createProgress,
  EXIT,
  formatDiagnostics,
  readPackageVersion,
  stderrColors,
  usage,
} from '@stackspec/core/cli';
import { type Command, Option } from 'commander';
import { createChrootRemote } from './adapters/chroot.js';
import { createDryRunRemote } from './adapters/dry-run.js';
import { createLocalRemote } from './adapters/local.js';
import { readImageSpecFile } from './adapters/spec-file.js';
import type { CommandStyle, RedhatInstaller } from './commands.js';
import { explainImageSpec, formatExplainedSpec } from './explain.js';
import { loadImageSpec, MAX_RESOURCE_BYTES } from './load.js';
import type { Remote } from './remote.js';
import type { ImageSpec, ValidatorNode } from './spec.js';
import {
  type CommandRecord,
  type ValidationReport,
  type ValidatorResult,
  validateImage,
} from './validate.js';

interface ValidateFlags {
  local?: boolean;
  host?: string;
  port?: string;
  identity?: string;
  knownHosts?: string;
  sshConfig?: string;
  insecureSkipHostKeyCheck?: boolean;
  passwordEnv?: string;
  passphraseEnv?: string;
  chroot?: string;
  reconcile?: boolean;
  arg: string[];
  env: string[];
  dryRun?: boolean;
  assumeInstalled?: boolean;
  distro?: string;
  format: 'text' | 'json';
  mode: CommandStyle;
  installer: RedhatInstaller;
  resourceRoot: string[];
  timeout?: string;
  verbose?: boolean;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function pairs(list: readonly string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0)
      usage(`${flag} needs NAME=VALUE, but got '${item}'.`, `For example: ${flag} java_distro=openjdk`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

// The user is left to the ssh config (`User`), else the local user, when `user@` is not given.
function parseHost(text: string): { username?: string; host: string } {
  const at = text.lastIndexOf('@');
  const host = (at > 0 ? text.slice(at + 1) : text).replace(/^\[(.*)\]$/, '$1');
  if (!host) usage(`--host needs [user@]host, but got '${text}'.`);
  return at > 0 ? { username: text.slice(0, at), host } : { host };
}

function positiveInt(
  text: string | undefined,
  flag: string,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0 || n > max) {
    usage(
      max === Number.MAX_SAFE_INTEGER
        ? `${flag} must be a positive whole number, but got '${text}'.`
        : `${flag} must be a whole number from 1 to ${max}, but got '${text}'.`,
    );
  }
  return n;
}

async function pickRemote(flags: ValidateFlags, io: CliIO): Promise<{ remote: Remote; target: string }> {
  const targets = [flags.local, flags.host, flags.chroot].filter((x) => x !== undefined && x !== false);
  if (targets.length > 1) usage('Choose one of --local, --host and --chroot.');
  if (!targets.length && !flags.dryRun) {
    usage('Say which machine to validate: --local, --host user@host or --chroot DIR (or --dry-run).');
  }
  const timeoutMs = (positiveInt(flags.timeout, '--timeout') ?? 0) * 1000 || undefined;
  if (flags.host) {
    const { username, host } = parseHost(flags.host);
    const port = positiveInt(flags.port, '--port', 65535);
    const secret = (name: string | undefined, flag: string) => {
      const value = name ? io.env[name] : undefined;
      if (name && value === undefined) usage(`The variable ${name} (from ${flag}) is not set.`);
      return value;
    };
    const password = secret(flags.passwordEnv, '--password-env');
    const passphrase = secret(flags.passphraseEnv, '--passphrase-env');
    // ssh2 is loaded only when a command goes over SSH.
    const { createSshRemote } = await import('./adapters/ssh.js');
    return {
      remote: createSshRemote({
        host,
        ...(username !== undefined ? { username } : {}),
        ...(port ? { port } : {}),
        ...(flags.identity ? { privateKeyPath: flags.identity } : {}),
        // The agent, home and config come from the command's environment, as for ssh.
        env: io.env,
        ...(io.env.HOME ? { home: io.env.HOME } : {}),
        ...(flags.sshConfig ? { configFile: resolve(io.cwd, flags.sshConfig) } : {}),
        onWarning: (d) =>
          io.stderr.write(
            d.file
              ? `${formatDiagnostics([d], { colors: stderrColors(io), summary: false })}\n`
              : `${stderrColors(io).yellow('warning:')} ${d.message}\n`,
          ),
        ...(password !== undefined ? { password } : {}),
        ...(passphrase !== undefined ? { passphrase } : {}),
        ...(flags.knownHosts ? { knownHostsFile: flags.knownHosts } : {}),
        ...(flags.insecureSkipHostKeyCheck ? { insecureSkipHostKeyCheck: true } : {}),
        ...(timeoutMs ? { timeoutMs } : {}),
      }),
      target: `${username !== undefined ? `${username}@` : ''}${host}${port ? `:${port}` : ''}`,
    };
  }
  if (
    flags.port ||
    flags.identity ||
    flags.knownHosts ||
    flags.sshConfig ||
    flags.passwordEnv ||
    flags.passphraseEnv
  ) {
    usage(
      '--port, --identity, --known-hosts, --ssh-config, --password-env and --passphrase-env only apply with --host.',
    );
  }
  if (flags.chroot)
    return {
      remote: createChrootRemote({ root: flags.chroot, ...(timeoutMs ? { timeoutMs } : {}) }),
      target: `chroot ${flags.chroot}`,
    };
  if (flags.local)
    return { remote: createLocalRemote(timeoutMs ? { timeoutMs } : {}), target: 'this machine' };
  return { remote: createDryRunRemote(), target: 'nothing (dry run)' };
}

function describeCommand(c: CommandRecord): string {
  if (c.op === 'write') return `write ${c.command}`;
  if (c.purpose === 'prefetch') {
    const n = (c.command.match(/siv-missing:/g) ?? []).length;
    return `$ (one command checking ${n} package${n === 1 ? '' : 's'})${c.exitCode ? `  → exit ${c.exitCode}` : ''}`;
  }
  const command = c.command.length > 160 ? `${c.command.slice(0, 157)}...` : c.command;
  return `$ ${command}${c.exitCode !== undefined && c.exitCode !== 0 ? `  → exit ${c.exitCode}` : ''}`;
}

/**
 * The `stackspec-image` command: `validate` a spec against a machine and
 * `explain` a spec. Returns the exit code (0 pass, 1 validation failed, 2
 * bad spec or usage); errors thrown here are printed by `runCli` (exit 2
 * for a failure of the tool itself).
 */
export async function runImageCli(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = createProgram('stackspec-image', io, {
    version: readPackageVersion(import.meta.url, '@stackspec/image-validators'),
  }).description('Check (and optionally fix) a machine against a Sahara image validation spec.');
  addExamples(program, [
    {
      description: 'Check this machine against a spec',
      command: 'stackspec-image validate image.yaml --local',
    },
    {
      description: 'Check and fix a host over SSH (a Host alias of ~/.ssh/config works)',
      command: 'stackspec-image validate image.yaml --host builder --reconcile',
    },
    { description: 'Show the validator tree of a spec', command: 'stackspec-image explain image.yaml' },
  ]);

  const validate: Command = program
    .command('validate')
    .description('Run a spec against a machine; check only unless --reconcile.')
    .argument('<spec>', 'the image.yaml to run')
    .option('--local', 'validate the machine this command runs on')
    .option('--host <[user@]host>', 'validate a machine over SSH (a Host alias of ~/.ssh/config works)')
    .option('--port <port>', 'SSH port, 1-65535 (default: the ssh config, else 22)')
    .option(
      '--identity <file>',
      'SSH private key (default, as ssh: the agent, then the IdentityFile of the ssh config, else ~/.ssh/id_rsa, id_ecdsa, id_ed25519)',
    )
    .option(
      '--known-hosts <file>',
      'known_hosts to verify host keys against (default: the ssh config, else ~/.ssh/known_hosts), besides /etc/ssh/ssh_known_hosts',
    )
    .option(
      '-F, --ssh-config <file>',
      'ssh config to read instead of ~/.ssh/config and /etc/ssh/ssh_config (as ssh -F)',
    )
    .option('--insecure-skip-host-key-check', 'accept any SSH host key (throwaway machines only)')
    .option('--password-env <var>', 'read the SSH password from this environment variable')
    .option('--passphrase-env <var>', 'read the passphrase of an encrypted SSH key from this variable')
    .option('--chroot <dir>', 'validate the system installed in a directory (needs root)')
    .option('--reconcile', 'fix what is wrong: install packages, run scripts in fix mode')
    .option('--arg <name=value>', 'value for a declared argument (repeatable)', collect, [])
    .option('--env <name=value>', 'extra variable for scripts (repeatable)', collect, [])
    .option('--dry-run', 'run nothing; show what would run on an empty machine')
    .option('--assume-installed', 'with --dry-run: pretend every package is installed')
    .option(
      '--distro <id>',
      'with --dry-run: the distribution to pretend (default: ask the target, else ubuntu)',
    )
    .option(
      '--resource-root <dir>',
      'folder holding the scripts (repeatable; default the spec folder)',
      collect,
      [],
    )
    .option('--timeout <seconds>', 'limit for each remote command')
    .option('--verbose', 'show the commands of every validator')
    .addOption(
      new Option('--installer <tool>', 'Red Hat family installer in batched mode')
        .choices(['auto', 'yum', 'dnf'])
        .default('auto'),
    )
    .addOption(
      new Option('--mode <mode>', "batched (fewer round trips) or sahara (Sahara's exact commands)")
        .choices(['batched', 'sahara'])
        .default('batched'),
    );
  addFormatOption(validate, ['text', 'json'], 'text');
  addExamples(validate, [
    { description: 'Check this machine', command: 'stackspec-image validate image.yaml --local' },
    {
      description: 'Show what would run on an empty CentOS machine, without running anything',
      command: 'stackspec-image validate image.yaml --dry-run --distro centos',
    },
    {
      description: 'Check a chroot, with an argument, and keep the report as JSON',
      command: 'stackspec-image validate image.yaml --chroot /mnt/image --arg java_distro=openjdk -f json',
    },
  ]);
  validate.action(async (specPath: string, flags: ValidateFlags) => {
    const args = pairs(flags.arg, '--arg');
    const env = pairs(flags.env, '--env');
    if ((flags.assumeInstalled || flags.distro) && !flags.dryRun)
      usage('--assume-installed and --distro only apply with --dry-run.');
    const spec = loadSpecFile(specPath, flags.resourceRoot, io.cwd);
    warnAbout(spec, args, io);
    const picked = await pickRemote(flags, io);
    let remote = picked.remote;
    let target = picked.target;
    if (flags.dryRun) {
      let distro = flags.distro;
      if (!distro && (flags.local || flags.host || flags.chroot)) distro = await picked.remote.distro();
      await picked.remote.close?.();
      const known = [...collectPackages(spec.validators)];
      remote = createDryRunRemote({
        distro: distro ?? 'ubuntu',
        machine: { installed: flags.assumeInstalled ? known : [] },
      });
      target = `a simulated ${distro ?? 'ubuntu'} machine (dry run; nothing runs)`;
    }
    const c = createColors({ stream: io.stdout, env: io.env });
    const text = flags.format === 'text';
    const progress = createProgress(io.stderr, { env: io.env, now: io.now });
    const showCommands = Boolean(flags.verbose || flags.dryRun);
    if (text) {
      io.stdout.write(
        `${c.bold('Validating')} ${spec.file ?? specPath} on ${target}: ${flags.reconcile ? 'check and fix' : 'check only'}, ${flags.mode} commands\n`,
      );
    }
    const composite = (r: ValidatorResult) =>
      r.kind === 'all' || r.kind === 'any' || r.kind === 'os_case' || r.kind === 'argument_case';
    const line = (r: ValidatorResult, mark: string) => {
      const where = r.line ? c.dim(`  line ${r.line}`) : '';
      const mode = r.mode === 'check' && flags.reconcile ? c.dim(' (check)') : '';
      io.stdout.write(`${'  '.repeat(r.depth + 1)}${mark} ${r.label}${mode}${where}\n`);
    };
    // Groups print a header when they start (so the log reads top-down) and a line at the
    // end only when that says something; leaves print once, when they finish.
    const printStart = (r: ValidatorResult) => {
      if (composite(r)) line(r, c.dim('▸'));
    };
    const printEnd = (r: ValidatorResult) => {
      if (composite(r)) {
        if (r.status === 'failed') line(r, c.red('✗'));
        else if (r.status === 'skipped') line(r, c.dim('- no case matched:'));
        return;
      }
      const mark =
        r.status === 'failed' ? c.red('✗') : r.status === 'fixed' ? c.yellow('✓ fixed') : c.green('✓');
      line(r, mark);
      if (showCommands || r.status === 'failed') {
        for (const cmd of r.commands)
          io.stdout.write(`${'  '.repeat(r.depth + 1)}    ${c.dim(describeCommand(cmd))}\n`);
      }
    };
    let report: ValidationReport;
    try {
      report = await validateImage(spec, remote, {
        reconcile: Boolean(flags.reconcile),
        arguments: args,
        env,
        mode: flags.mode,
        redhatInstaller: flags.installer,
        onProgress: (e) => {
          if (e.type === 'start') {
            progress.done();
            if (text) printStart(e.result);
            progress.update(`running ${e.result.label}…`);
          }
          if (e.type === 'end') {
            progress.done();
            if (text) printEnd(e.result);
          }
        },
      });
    } finally {
      progress.done();
      await remote.close?.();
    }
    if (flags.format === 'json') {
      io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      io.stdout.write(`${summarize(report, c)}\n`);
    }
    exitCode = report.ok ? EXIT.ok : EXIT.findings;
  });

  const explain = program
    .command('explain')
    .description('Show the arguments and the validator tree of a spec.')
    .argument('<spec>', 'the image.yaml to read')
    .option(
      '--resource-root <dir>',
      'folder holding the scripts (repeatable; default the spec folder)',
      collect,
      [],
    );
  addFormatOption(explain, ['text', 'json'], 'text');
  addExamples(explain, [
    { description: 'The arguments and validators of a spec', command: 'stackspec-image explain image.yaml' },
    {
      description: 'The same as JSON, with scripts from another folder',
      command: 'stackspec-image explain image.yaml --resource-root ./scripts -f json',
    },
  ]);
  explain.action((specPath: string, flags: { format: 'text' | 'json'; resourceRoot: string[] }) => {
    const spec = loadSpecFile(specPath, flags.resourceRoot, io.cwd);
    warnAbout(spec, {}, io);
    const explained = explainImageSpec(spec);
    io.stdout.write(
      flags.format === 'json'
        ? `${JSON.stringify(explained, null, 2)}\n`
        : `${formatExplainedSpec(explained)}\n`,
    );
  });

  await program.parseAsync([...argv], { from: 'user' });
  return exitCode;
}

/**
 * Loads the spec at a path named on the command line: always a path, never
 * spec text. Scripts are looked up under `--resource-root` folders
 * (relative to the working directory), by default the spec's own folder.
 */
function loadSpecFile(specPath: string, resourceRoots: readonly string[], cwd: string): ImageSpec {
  const read = readImageSpecFile(specPath, {
    maxBytes: MAX_RESOURCE_BYTES,
    ...(resourceRoots.length ? { resourceRoots, baseDir: cwd } : {}),
  });
  if (!read.ok)
    throw new SpecError(undefined, { code: 'image/spec/unreadable', diagnostics: read.diagnostics });
  return loadImageSpec(read.source, { reader: read.reader });
}

/** Spec warnings, and --arg names the spec does not declare (Sahara drops them silently). */
function warnAbout(spec: ImageSpec, args: Record<string, string>, io: CliIO): void {
  const declared = spec.arguments.map((a) => a.name);
  const warnings = [...spec.warnings];
  for (const name of Object.keys(args)) {
    if (declared.includes(name)) continue;
    const hint = didYouMean(suggest(name, declared));
    warnings.push({
      code: 'cli/undeclared-argument',
      severity: 'warning',
      message: `The spec declares no argument '${name}', so --arg ${name} is ignored.`,
      path: '/arguments',
      ...(spec.file ? { file: spec.file } : {}),
      hint:
        hint ??
        (declared.length ? `Declared arguments: ${declared.join(', ')}.` : 'The spec declares no arguments.'),
    });
  }
  if (warnings.length)
    io.stderr.write(`${formatDiagnostics(warnings, { colors: stderrColors(io), summary: false })}\n`);
}

function collectPackages(nodes: readonly ValidatorNode[], out = new Set<string>()): Set<string> {
  for (const n of nodes) {
    if (n.kind === 'package')
      for (const p of n.packages) out.add(p.version ? `${p.name}-${p.version}` : p.name);
    if (n.kind === 'all' || n.kind === 'any') collectPackages(n.validators, out);
    if (n.kind === 'os_case' || n.kind === 'argument_case')
      for (const c of n.cases) collectPackages(c.validators, out);
    if (n.kind === 'custom') collectPackages(n.definition.children?.(n.config as never) ?? [], out);
  }
  return out;
}

function summarize(report: ValidationReport, c: ReturnType<typeof createColors>): string {
  const counts = { passed: 0, fixed: 0, failed: 0, skipped: 0 };
  for (const r of report.results) if (r.status !== 'running') counts[r.status] += 1;
  const stats = `${report.results.length} validator runs: ${counts.passed} passed, ${counts.fixed} fixed, ${counts.failed} failed, ${counts.skipped} without a matching case; ${report.commandCount} remote round trips`;
  const on = report.distro
    ? ` (${report.distro}${report.family ? `, ${report.family} family` : ', unknown family'})`
    : '';
  if (report.ok) return `${c.green(c.bold('✔ image is valid'))}${on}\n  ${stats}`;
  const f = report.failure;
  const lines = [`${c.red(c.bold('✖ validation failed'))}${on}: ${f?.message ?? 'unknown failure'}`];
  if (f?.line || f?.path)
    lines.push(`  at ${f.file ?? ''}${f.line ? `:${f.line}` : ''}${f.path ? ` (${f.path})` : ''}`);
  if (f?.scriptPath) lines.push(`  script: ${f.scriptPath}`);
  if (f?.command) lines.push(`  command: ${f.command}`);
  if (f?.stderr?.trim()) lines.push(`  stderr:\n${indentText(f.stderr)}`);
  if (f?.stdout?.trim()) lines.push(`  stdout:\n${indentText(f.stdout)}`);
  for (const cause of f?.causes ?? [])
    lines.push(`  - ${cause.message}${cause.line ? ` (line ${cause.line})` : ''}`);
  lines.push(`  ${stats}`);
  return lines.join('\n');
}

function indentText(text: string): string {
  const lines = text.trimEnd().split('\n');
  const shown = lines.length > 20 ? [...lines.slice(0, 20), `… ${lines.length - 20} more lines`] : lines;
  return shown.map((l) => `    ${l}`).join('\n');
}
