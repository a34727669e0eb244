import { z } from 'zod';
import { exportLine, shellQuote } from './shell.js';
import type { PackageRef } from './spec.js';

/** The command styles, as a schema; see {@link CommandStyle}. */
export const CommandStyleSchema = z.enum(['batched', 'sahara']);
/** How commands are shaped: `batched` (ours, fewer round trips) or `sahara` (Sahara's exact commands). */
export type CommandStyle = z.infer<typeof CommandStyleSchema>;

/** Package tool families the `package` validator knows. */
export type PackageFamily = 'debian' | 'redhat';

/**
 * Installer used for the Red Hat family. Sahara always used `yum`; `auto`
 * uses `dnf` where it exists and `yum` elsewhere, in the same command.
 */
export const RedhatInstallerSchema = z.enum(['yum', 'dnf', 'auto']);
/** Installer used for the Red Hat family; see {@link RedhatInstallerSchema}. */
export type RedhatInstaller = z.infer<typeof RedhatInstallerSchema>;

/** Extracts a batch of copy_script files sent on stdin; replaces symlinks rather than following them. */
export const TAR_COMMAND = 'tar -x -m -f - -C /';

/** The marker the batched package check prints last, so a truncated answer is never mistaken for a verdict. */
export const BATCH_DONE = 'siv-done';
const BATCH_MISSING = 'siv-missing:';

/**
 * The word a package check and install use: Sahara writes `name-version` for
 * every family; our batched style uses `name=version` for apt (what apt
 * understands) and `name-version` for rpm/yum.
 */
export function packageWord(p: PackageRef, family: PackageFamily, style: CommandStyle): string {
  if (!p.version) return p.name;
  return style === 'batched' && family === 'debian' ? `${p.name}=${p.version}` : `${p.name}-${p.version}`;
}

function words(list: readonly string[]): string {
  return list.map(shellQuote).join(' ');
}

/** One package's check as a shell condition (batched style): true when installed (at the pinned version). */
function packageCondition(p: PackageRef, family: PackageFamily): string {
  if (family === 'redhat') return `rpm -q ${shellQuote(packageWord(p, family, 'batched'))} >/dev/null 2>&1`;
  if (!p.version) return `dpkg -s ${shellQuote(p.name)} >/dev/null 2>&1`;
  const expected = `install ok installed ${p.version}`;
  return `[ "$(dpkg-query -W -f='\${Status} \${Version}' ${shellQuote(p.name)} 2>/dev/null)" = ${shellQuote(expected)} ]`;
}

/**
 * The check for one validator's packages, run as a single command. Sahara's
 * `dpkg -s a b` / `rpm -q a b`; in batched style the same unless an apt
 * package is pinned (then each package's condition, joined with `&&`).
 */
export function checkCommand(
  packages: readonly PackageRef[],
  family: PackageFamily,
  style: CommandStyle,
): string {
  if (style === 'batched' && family === 'debian' && packages.some((p) => p.version)) {
    return packages.map((p) => packageCondition(p, family)).join(' && ');
  }
  const tool = family === 'redhat' ? 'rpm -q' : 'dpkg -s';
  return `${tool} ${words(packages.map((p) => packageWord(p, family, style)))}`.trimEnd();
}

/** The install of one validator's packages as one command. */
export function installCommand(
  packages: readonly PackageRef[],
  family: PackageFamily,
  style: CommandStyle,
  redhatInstaller: RedhatInstaller = 'yum',
): string {
  const list = words(packages.map((p) => packageWord(p, family, style)));
  if (family === 'redhat') {
    const tool = style === 'sahara' ? 'yum' : redhatInstaller;
    if (tool === 'auto') {
      return `if command -v dnf >/dev/null 2>&1; then dnf install -y ${list}; else yum install -y ${list}; fi`;
    }
    return `${tool} install -y ${list}`.trimEnd();
  }
  return `DEBIAN_FRONTEND=noninteractive apt-get -y install ${list}`.trimEnd();
}

/**
 * One command that checks many packages and prints `siv-missing:<index>` for
 * each one that is missing, then `siv-done`. Each package gets exactly the
 * test a batched check of that package alone would run (`dpkg -s`, `rpm -q`,
 * or a `dpkg-query` status and version comparison for an apt pin), so the
 * verdict per package is the same as checking it alone.
 */
export function batchCheckCommand(packages: readonly PackageRef[], family: PackageFamily): string {
  const parts = packages.map((p, i) => `${packageCondition(p, family)} || echo ${BATCH_MISSING}${i}`);
  return [...parts, `echo ${BATCH_DONE}`].join('; ');
}

/** Reads the answer of {@link batchCheckCommand}: the indexes of missing packages, or `undefined` if incomplete. */
export function readBatchCheck(stdout: string, count: number): Set<number> | undefined {
  const lines = stdout.split('\n').map((l) => l.trim());
  if (!lines.includes(BATCH_DONE)) return undefined;
  const missing = new Set<number>();
  for (const line of lines) {
    if (!line.startsWith(BATCH_MISSING)) continue;
    const i = Number(line.slice(BATCH_MISSING.length));
    if (!Number.isInteger(i) || i < 0 || i >= count) return undefined;
    missing.add(i);
  }
  return missing;
}

/**
 * A script file as Sahara builds it: one `export NAME=value` line per
 * exported variable, then the body. Values are quoted (Sahara wrote them
 * bare, so spaces and `$(…)` reached the shell).
 *
 * With `shebangFirst`, a `#!` line of the body moves to the top so the
 * script runs under the interpreter it names (`#!/bin/bash` when it names none).
 */
export function scriptFile(
  exports: readonly (readonly [string, string])[],
  body: string,
  shebangFirst: boolean,
): string {
  const lines = exports.map(([k, v]) => exportLine(k, v));
  if (!shebangFirst) return `${lines.join('\n')}\n${body}`;
  let shebang = '#!/bin/bash';
  let rest = body;
  if (body.startsWith('#!')) {
    const nl = body.indexOf('\n');
    shebang = nl < 0 ? body : body.slice(0, nl);
    rest = nl < 0 ? '' : body.slice(nl + 1);
  }
  return `${shebang}\n${lines.join('\n')}${lines.length ? '\n' : ''}${rest}`;
}

/**
 * The one command that runs a script in batched style: the file arrives on
 * standard input, goes to a private temporary file, runs with stdin closed,
 * and is removed; the script's exit status is the command's.
 */
export function runScriptCommand(tempDir = '/tmp'): string {
  const template = shellQuote(`${tempDir.replace(/\/+$/, '')}/siv-XXXXXXXX`);
  return `f=$(mktemp ${template}) && cat >"$f" && chmod 700 "$f" && { "$f" </dev/null; rc=$?; rm -f "$f"; exit $rc; }`;
}

/**
 * Splits text written by {@link shellQuote} back into words (bare words and
 * single-quoted parts). Used by the dry-run machine to understand the
 * commands this package generates; not a general shell parser.
 */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      cur += text.slice(i + 1, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[i + 1];
      i += 1;
      inWord = true;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

/** What a generated package command means, for machines that simulate one. */
export type RecognizedPackageCommand =
  | { kind: 'check'; family: PackageFamily; packages: string[] }
  | { kind: 'install'; family: PackageFamily; packages: string[] }
  | { kind: 'batch-check'; family: PackageFamily; packages: string[] };

/**
 * Recognises the package commands this package generates (both styles).
 * Package words come back as written (`name`, `name-1.0`, `name=1.0`).
 */
export function recognizePackageCommand(command: string): RecognizedPackageCommand | undefined {
  if ((command === 'dpkg -s' || command.startsWith('dpkg -s ')) && !command.includes('>/dev/null')) {
    return { kind: 'check', family: 'debian', packages: splitWords(command.slice(7)) };
  }
  if ((command === 'rpm -q' || command.startsWith('rpm -q ')) && !command.includes('>/dev/null')) {
    return { kind: 'check', family: 'redhat', packages: splitWords(command.slice(6)) };
  }
  const apt = 'DEBIAN_FRONTEND=noninteractive apt-get -y install';
  if (command === apt || command.startsWith(`${apt} `)) {
    return { kind: 'install', family: 'debian', packages: splitWords(command.slice(apt.length)) };
  }
  const auto =
    /^if command -v dnf >\/dev\/null 2>&1; then dnf install -y (.*); else yum install -y \1; fi$/.exec(
      command,
    );
  if (auto) return { kind: 'install', family: 'redhat', packages: splitWords(auto[1] ?? '') };
  const rh = /^(yum|dnf) install -y( |$)/.exec(command);
  if (rh) return { kind: 'install', family: 'redhat', packages: splitWords(command.slice(rh[0].length)) };
  const conditions = command.split(/; | && /).filter((c) => c !== `echo ${BATCH_DONE}`);
  const found: { family: PackageFamily; word: string }[] = [];
  for (const c of conditions) {
    const cond = c.replace(new RegExp(` \\|\\| echo ${BATCH_MISSING}\\d+$`), '');
    let m = /^dpkg -s (.+) >\/dev\/null 2>&1$/.exec(cond);
    if (m?.[1]) {
      found.push({ family: 'debian', word: splitWords(m[1])[0] ?? '' });
      continue;
    }
    m = /^rpm -q (.+) >\/dev\/null 2>&1$/.exec(cond);
    if (m?.[1]) {
      found.push({ family: 'redhat', word: splitWords(m[1])[0] ?? '' });
      continue;
    }
    m = /^\[ "\$\(dpkg-query -W -f='\$\{Status\} \$\{Version\}' (.+) 2>\/dev\/null\)" = (.+) \]$/.exec(cond);
    if (m?.[1] && m[2]) {
      const name = splitWords(m[1])[0] ?? '';
      const version = (splitWords(m[2])[0] ?? '').replace(/^install ok installed /, '');
      found.push({ family: 'debian', word: `${name}=${version}` });
      continue;
    }
    return undefined;
  }
  if (!found.length) return undefined;
  const family = found[0]?.family as PackageFamily;
  const packages = found.map((f) => f.word);
  return command.includes(BATCH_DONE)
    ? { kind: 'batch-check', family, packages }
    : { kind: 'check', family, packages };
}
