import { createDryRunRemote, type DryRunRemote, parseScriptFile } from '../../src/adapters/dry-run.js';
import type { ExecResult } from '../../src/remote.js';

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

/** Rewrites one of our script files the way Sahara lays it out (bare values, no SIV_ variables). */
export function asSaharaScriptFile(content: string): string {
  const parsed = parseScriptFile(content);
  const exports = Object.entries(parsed.env)
    .filter(([k]) => !k.startsWith('SIV_'))
    .map(([k, v]) => `export ${k}=${v}`);
  return `${exports.join('\n')}\n${parsed.body}`;
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
