import { createDryRunRemote, type DryRunRemote, parseScriptFile } from '../../src/adapters/dry-run.js';
import { scriptFile } from '../../src/commands.js';
import type { ExecResult } from '../../src/remote.js';
import { exportLine } from '../../src/shell.js';

/** A command answer forced by a rule (both sides apply rules before the machine model). */
export interface RespondRule {
  pattern: string;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
}

/** How a script (by stand-in marker or inline body) answers in each mode, and what it installs when fixing. */
export interface ScriptAnswer {
  check?: Partial<ExecResult>;
  fix?: Partial<ExecResult>;
  installs?: string[];
}

/**
 * One simulated machine, described as data so the Python oracle and our
 * dry-run remote can both play it.
 */
export interface World {
  installed?: string[];
  /** Omitted: anything can be installed. */
  installable?: string[];
  respond?: RespondRule[];
  scripts?: Record<string, ScriptAnswer>;
}

/** The key a script answers under: its stand-in marker, else its trimmed body. */
export function scriptKey(body: string, known: Readonly<Record<string, ScriptAnswer>>): string {
  const marker = /# stand-in: (\S+)/.exec(body);
  if (marker?.[1]) return marker[1];
  const trimmed = body.trim();
  if (trimmed in known || !trimmed.startsWith('#!')) return trimmed;
  // Our batched style adds `#!/bin/bash` to bodies that have no shebang.
  return trimmed.slice(trimmed.indexOf('\n') + 1).trim();
}

/** Our dry-run remote playing `world`. */
export function worldRemote(world: World, distro: string): DryRunRemote {
  const scripts = world.scripts ?? {};
  const remote: DryRunRemote = createDryRunRemote({
    distro,
    respond: (command) => {
      for (const rule of world.respond ?? []) {
        if (new RegExp(rule.pattern).test(command)) {
          return { exitCode: rule.exitCode ?? 0, stdout: rule.stdout ?? '', stderr: rule.stderr ?? '' };
        }
      }
      return undefined;
    },
    machine: {
      installed: world.installed ?? [],
      installable: world.installable ?? 'all',
      script: (s) => {
        const mode = s.env.test_only === '1' ? 'check' : 'fix';
        const answer = scripts[scriptKey(s.body, scripts)] ?? {};
        if (mode === 'fix') for (const p of answer.installs ?? []) (remote.installed as Set<string>).add(p);
        return answer[mode] ?? {};
      },
    },
  });
  return remote;
}

/**
 * Rewrites one of our script files the way Sahara lays it out, and says which
 * listed differences that took: `quoted-exports` (we quote values Sahara wrote
 * bare) and `siv-variables` (we also export SIV_DISTRO and SIV_RECONCILE).
 * Throws when the file is not exactly our layout of those exports and body,
 * so the rewrite can never hide any other difference.
 */
export function asSaharaScriptFile(content: string): { text: string; differences: string[] } {
  const parsed = parseScriptFile(content);
  const entries = Object.entries(parsed.env);
  if (scriptFile(entries, parsed.body, false) !== content) {
    throw new Error(`Not a Sahara-mode script file of ours, so it cannot be compared:\n${content}`);
  }
  const differences = new Set<string>();
  const lines: string[] = [];
  for (const [k, v] of entries) {
    if (k.startsWith('SIV_')) {
      differences.add('siv-variables');
      continue;
    }
    const bare = `export ${k}=${v}`;
    if (exportLine(k, v) !== bare) differences.add('quoted-exports');
    lines.push(bare);
  }
  return { text: `${lines.join('\n')}\n${parsed.body}`, differences: [...differences] };
}

/** A spec for the oracle comparison, with the scripts its roots hold (stand-ins when omitted). */
export interface SpecInput {
  id: string;
  text: string;
  scripts?: Record<string, string>;
}

/** One run to compare: a spec on a simulated machine, in one mode, with caller arguments. */
export interface Scenario {
  id: string;
  spec: string;
  distro: string;
  testOnly: boolean;
  arguments: Record<string, string | number | boolean>;
  world: World;
}
