// Replays the console sessions of a documentation page: every `$ command` runs (with the workspace's commands on PATH, built
// or from source, see process.ts) and must print what the page shows. So the
// pages cannot go stale.
//
// How a page is read:
// - A ```console block is a session: `$ ` lines are commands, the lines after
//   one are its output (standard output and error together, as a terminal shows).
// - In the output, `…` stands for any text; a line that is only `…` stands for
//   any number of lines.
// - Commands run from the repository root, unless an HTML comment just above the
//   block says `<!-- replay-in: /tmp/stackspec-try/DIR -->`: the scratch folder
//   the pages use, here a fresh temporary folder per page. There, `$ cat FILE`
//   writes the output shown into FILE. `<!-- replay-setup: COMMAND -->` runs a
//   shell command first (`$REPO` is the repository root); `<!-- replay-skip:
//   REASON -->` leaves a block out.
// - `stackspec serve` keeps running (on a free port, shown as 8080, 8081…) until the
//   page ends.
//
// Added for the pages that walk through files and servers (each directive sits
// just above its block, blank lines allowed in between):
// - Files. A fenced block of any other language (```yaml, ```json, ```ts…) is
//   written to the scratch folder when a caption line just above it names the
//   file: File: `flavors/compute.yaml` (visible to readers), or the invisible
//   `<!-- replay-file: PATH -->`. The caption is never part of the body, so the
//   line numbers the page shows are the file's. PATH is relative to the block's
//   own `replay-in` folder or, without one, to the folder of the last
//   `replay-in` above it on the page; an absolute PATH must be under
//   /tmp/stackspec-try. Files are written in page order, between the sessions.
// - `<!-- replay-prepare: docs/README.md -->` (anywhere on the page): before the
//   page's own blocks, replays the blocks of that page (its setup of the scratch
//   folder: package.json, the `file:` links to this checkout's packages, tsx,
//   typescript and vitest) in this page's scratch folder. Every session then has
//   the scratch folder's node_modules/.bin on PATH, as the setup tells readers
//   to do. Without a build (STACKSPEC_REQUIRE_BUILT unset) the workspace's
//   commands there are replaced by the shims that run their sources, and
//   NODE_OPTIONS adds the `@stackspec/source` condition and tsx's loader, so
//   every node process there (scripts, plugins, the setup's own `stackspec
//   --version`) imports the packages' sources, not a stale dist.
// - `<!-- replay-background -->`: the block's one command (a server such as
//   `node nova-flavors.mjs`) starts in the background, as in a second terminal;
//   the block passes once what it printed matches the block's output, and the
//   process keeps running.
// - `<!-- replay-interrupt -->`: Ctrl-C for the latest background process still
//   running: SIGINT, wait for it to end, then compare everything it printed with
//   the block's body (a ```console or ```text block, no `$ ` line needed). A
//   section that starts a server ends with one, so the next section finds the
//   port free. Whatever still runs when the page ends is stopped.
// - `<!-- replay-ports: 8774 8775 -->` (anywhere): more ports, besides 8080…8089,
//   that stand for free ports of the run. A shown port is replaced in commands
//   and written files where it follows `127.0.0.1:`, `localhost:`, `--port `,
//   `--port=` or `port: `, and put back in outputs after `127.0.0.1:` and
//   `localhost:`.
// - Sessions run with npm offline (`npm_config_offline=true`): `file:` links
//   need no registry, and nothing else may be fetched.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TSX_LOADER } from '../../../test-support/bin.js';
import { binEnv, REPO, shell, startStackspec, TSX_BIN, USE_BUILT, writeShims } from './process.js';

const SCRATCH = '/tmp/stackspec-try';
const SEPARATOR = '\u001e-- end of command --';

interface Command {
  line: number;
  text: string;
  expected: string[];
}

/** One step of a page: a console session, a file to write, or the Ctrl-C of a background process. */
export interface Block {
  line: number;
  cwd?: string;
  setup: string[];
  skip?: string;
  commands: Command[];
  /** For a file block: where it goes (as the page gives it) and its body. */
  file?: { path: string; folder?: string; body: string };
  /** The single command runs in the background and keeps running. */
  background?: boolean;
  /** Interrupts the latest background process; `expected` is all it printed. */
  interrupt?: { expected: string[] };
}

/** Page-wide directives: pages to replay first, and more ports to map. */
export interface PageDirectives {
  prepare: string[];
  ports: string[];
}

const DIRECTIVE = /^<!-- (replay-[a-z]+):? ?(.*?) ?-->$/;
const CAPTION = /^File: `([^`]+)`:?$/;

/** The page-wide directives of a Markdown page. */
export function readPageDirectives(markdown: string): PageDirectives {
  const out: PageDirectives = { prepare: [], ports: [] };
  for (const line of markdown.split('\n')) {
    const d = DIRECTIVE.exec(line);
    if (d?.[1] === 'replay-prepare') out.prepare.push(d[2] ?? '');
    if (d?.[1] === 'replay-ports') out.ports.push(...(d[2] ?? '').split(/\s+/).filter(Boolean));
  }
  return out;
}

/** The console blocks and captioned files of a Markdown page, with the directives above each. */
export function readSessions(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let directives: string[] = [];
  let caption: string | undefined;
  // The folder of the last `replay-in`: where captioned files without their own go.
  let folder: string | undefined;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const directive = DIRECTIVE.exec(line);
    if (directive) {
      if (directive[1] === 'replay-prepare' || directive[1] === 'replay-ports') continue;
      if (directive[1] === 'replay-file') caption = directive[2];
      else directives.push(`${directive[1]}\u0000${directive[2]}`);
      continue;
    }
    const captioned = CAPTION.exec(line);
    if (captioned) {
      caption = captioned[1];
      continue;
    }
    const fence = /^(`{3,})\s*([\w-]*)/.exec(line);
    if (!fence) {
      if (line.trim() !== '') {
        directives = [];
        caption = undefined;
      }
      continue;
    }
    const ticks = fence[1] as string;
    // A closing fence is backticks alone, at least as many as opened the block (CommonMark).
    const closes = new RegExp(`^${ticks}\`*\\s*$`);
    const lang = fence[2] ?? '';
    const block: Block = { line: i + 1, setup: [], commands: [] };
    for (const d of directives) {
      const [name, value = ''] = d.split('\u0000');
      if (name === 'replay-in') block.cwd = value;
      else if (name === 'replay-setup') block.setup.push(value);
      else if (name === 'replay-skip') block.skip = value;
      else if (name === 'replay-background') block.background = true;
      else if (name === 'replay-interrupt') block.interrupt = { expected: [] };
      else throw new Error(`line ${i + 1}: unknown directive ${name}`);
    }
    directives = [];
    if (block.cwd) folder = block.cwd;
    const body: string[] = [];
    for (i += 1; i < lines.length && !closes.test(lines[i] ?? ''); i += 1) body.push(lines[i] ?? '');
    if (block.interrupt) {
      block.interrupt.expected = body;
      blocks.push(block);
    } else if (lang === 'console' && caption === undefined) {
      for (const [n, text] of body.entries()) {
        if (text.startsWith('$ '))
          block.commands.push({ line: block.line + n + 1, text: text.slice(2), expected: [] });
        else block.commands.at(-1)?.expected.push(text);
      }
      if (block.background && block.commands.length !== 1) {
        throw new Error(`line ${block.line}: a replay-background block has exactly one command`);
      }
      blocks.push(block);
    } else if (caption !== undefined) {
      block.file = { path: caption, body: `${body.join('\n')}\n`, ...(folder ? { folder } : {}) };
      blocks.push(block);
    }
    caption = undefined;
  }
  return blocks;
}

function trimLines(lines: readonly string[]): string[] {
  const out = lines.map((l) => l.replace(/\s+$/, ''));
  while (out.length && out.at(-1) === '') out.pop();
  return out;
}

/** Whether `actual` is what `expected` shows, `…` standing for any text (or, alone on a line, any lines). */
export function outputMatches(expected: readonly string[], actual: readonly string[]): boolean {
  const patterns = expected.map((l) =>
    l === '…'
      ? undefined
      : new RegExp(
          `^${l
            .split('…')
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
        ),
  );
  const memo = new Map<string, boolean>();
  const from = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let ok: boolean;
    if (i === patterns.length) ok = j === actual.length;
    else {
      const p = patterns[i];
      ok = p
        ? j < actual.length && p.test(actual[j] ?? '') && from(i + 1, j + 1)
        : from(i + 1, j) || (j < actual.length && from(i, j + 1));
    }
    memo.set(key, ok);
    return ok;
  };
  return from(0, 0);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

/** A process left running by a block, with what it printed so far. */
interface Background {
  child: ChildProcess;
  out(): string;
  exited: Promise<number | null>;
  /** Sends `signal` to the process and everything it started. */
  signal(signal: NodeJS.Signals): void;
  running: boolean;
}

function startBackground(command: string, cwd: string, env: Record<string, string>): Background {
  // Its own process group, so Ctrl-C reaches `npx`, `tsx` and the node they start, as in a terminal.
  const child = spawn('/bin/sh', ['-c', command], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  const bg: Background = {
    child,
    out: () => out,
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    signal: (signal) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    },
    running: true,
  };
  void bg.exited.then(() => {
    bg.running = false;
  });
  return bg;
}

/** Resolves once `ready()` holds, checking every 50 ms; rejects after `ms` or once `gone()` holds. */
async function until(ready: () => boolean, gone: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!ready()) {
    if (gone() || Date.now() > end) return ready();
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** The npm settings the replay itself gives (quiet, offline); every other npm_config_* is pnpm's. */
const READER_NPM_SETTINGS = new Set([
  'npm_config_offline',
  'npm_config_audit',
  'npm_config_fund',
  'npm_config_update_notifier',
]);

/** Declares the tests that replay every console session of `page` (a path from the repository root). */
export function replayPage(page: string): void {
  let shims: string;
  beforeAll(() => {
    shims = mkdtempSync(join(tmpdir(), 'stackspec-shims-'));
    writeShims(shims);
  });
  afterAll(() => rmSync(shims, { recursive: true, force: true }));

  describe(`the console sessions of ${page}`, () => {
    const markdown = readFileSync(join(REPO, page), 'utf8');
    const pageDirectives = readPageDirectives(markdown);
    const prepared = pageDirectives.prepare.flatMap((other) =>
      readSessions(readFileSync(join(REPO, other), 'utf8')).map((b) => ({ ...b, from: other })),
    );
    const blocks = [...prepared, ...readSessions(markdown).map((b) => ({ ...b, from: page }))];
    let scratch: string;
    // Each port the page shows (8080, 8081…, and those of replay-ports) stands for a free port of this run.
    const ports = new Map<string, string>();
    const servers: Background[] = [];
    beforeAll(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'stackspec-try-'));
      for (const shown of new Set([...(markdown.match(/\b808\d\b/g) ?? []), ...pageDirectives.ports])) {
        ports.set(shown, String(await freePort()));
      }
    });
    afterAll(async () => {
      for (const s of servers.filter((x) => x.running)) {
        s.signal('SIGTERM');
        const done = await until(
          () => !s.running,
          () => false,
          10_000,
        );
        if (!done) s.signal('SIGKILL');
        await s.exited;
      }
      rmSync(scratch, { recursive: true, force: true });
    });

    const inCommand = (text: string) => {
      let out = text.replaceAll(SCRATCH, scratch);
      for (const [shown, real] of ports) {
        out = out.replace(
          new RegExp(`(127\\.0\\.0\\.1:|localhost:|--port |--port=|port: )${shown}\\b`, 'g'),
          `$1${real}`,
        );
      }
      return out;
    };
    const asShown = (text: string) => {
      let out = text.replaceAll(scratch, SCRATCH);
      for (const [shown, real] of ports) {
        // A free port is a five-digit number no page shows otherwise: put the shown one back wherever it stands alone.
        out = out.replace(new RegExp(`(?<![\\d.])${real}(?![\\d])`, 'g'), shown);
      }
      return out;
    };
    const environment = () => {
      const env = binEnv({
        REPO,
        npm_config_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
      });
      // A reader's shell has none of the settings pnpm hands its scripts (npm_config_catalog,
      // npm_config_auto_install_peers…), which npm would warn about when `pnpm test` runs the page.
      for (const key of Object.keys(env)) {
        if (/^npm_(config|package|lifecycle)_/i.test(key) && !READER_NPM_SETTINGS.has(key)) delete env[key];
      }
      if (!USE_BUILT) {
        env.NODE_OPTIONS =
          `${env.NODE_OPTIONS ?? ''} --conditions=@stackspec/source --import ${TSX_LOADER}`.trim();
      }
      env.PATH = `${join(scratch, 'node_modules/.bin')}:${env.PATH ?? ''}`;
      return env;
    };

    it('has sessions to replay', () => {
      expect(blocks.filter((b) => !b.skip && b.from === page).length).toBeGreaterThan(0);
    });

    for (const block of blocks) {
      const where = block.from === page ? '' : `${block.from} `;
      const title = block.file
        ? `${where}line ${block.line}: writes ${block.file.path}`
        : block.interrupt
          ? `${where}line ${block.line}: Ctrl-C`
          : `${where}line ${block.line}: ${block.commands
              .map((c) => `$ ${c.text}`)
              .join('; ')
              .slice(0, 120)}`;
      it.skipIf(block.skip !== undefined)(title, { timeout: 300_000 }, async () => {
        const compare = (line: number, text: string, expectedLines: readonly string[], output: string) => {
          const expected = trimLines(expectedLines);
          const actual = trimLines(output.split('\n'));
          if (outputMatches(expected, actual)) return;
          expect(
            actual.join('\n'),
            `${block.from}:${line}: ${text}\n(the page shows the expected side)`,
          ).toBe(expected.join('\n'));
        };

        if (block.file) {
          const base = block.cwd ?? block.file.folder;
          if (!isAbsolute(block.file.path) && !base) {
            throw new Error(`${block.from}:${block.line}: no replay-in folder above ${block.file.path}`);
          }
          const target = inCommand(
            isAbsolute(block.file.path) ? block.file.path : join(base ?? '', block.file.path),
          );
          expect(target.startsWith(scratch), `${block.from}:${block.line}: files go under ${SCRATCH}`).toBe(
            true,
          );
          mkdirSync(dirname(target), { recursive: true });
          writeFileSync(target, inCommand(block.file.body));
          return;
        }

        if (block.interrupt) {
          const running = servers.filter((s) => s.running).at(-1);
          expect(
            running,
            `${block.from}:${block.line}: nothing runs in the background to interrupt`,
          ).toBeDefined();
          if (!running) return;
          running.signal('SIGINT');
          if (
            !(await until(
              () => !running.running,
              () => false,
              20_000,
            ))
          )
            running.signal('SIGKILL');
          await running.exited;
          if (trimLines(block.interrupt.expected).length > 0) {
            compare(block.line, 'Ctrl-C', block.interrupt.expected, asShown(running.out()));
          }
          return;
        }

        const cwd = block.cwd ? inCommand(block.cwd) : REPO;
        mkdirSync(cwd, { recursive: true });
        const env = environment();
        if (!USE_BUILT) {
          // The links the setup made point at dist/bin, which may be stale or missing without a build.
          const bins = join(scratch, 'node_modules/.bin');
          for (const name of readdirSync(shims)) {
            if (!existsSync(join(bins, name))) continue;
            rmSync(join(bins, name));
            copyFileSync(join(shims, name), join(bins, name));
          }
        }
        for (const setup of block.setup) {
          execFileSync('/bin/sh', ['-c', inCommand(setup)], {
            cwd,
            env: { ...env, PATH: `${shims}:${env.PATH}` },
          });
        }

        if (block.background) {
          const command = block.commands[0] as Command;
          const bg = startBackground(inCommand(command.text), cwd, {
            ...env,
            PATH: `${shims}:${TSX_BIN}:${env.PATH}`,
          });
          servers.push(bg);
          const expected = trimLines(command.expected);
          const ready = () => outputMatches(expected, trimLines(asShown(bg.out()).split('\n')));
          await until(ready, () => !bg.running, 60_000);
          compare(command.line, `$ ${command.text}`, command.expected, asShown(bg.out()));
          return;
        }

        const serve = block.commands.find((c) => c.text.startsWith('stackspec serve '));
        if (serve) {
          // A server keeps running for the blocks after it; it is a block of its own.
          expect(
            block.commands,
            `${block.from}:${serve.line}: stackspec serve must be alone in its block`,
          ).toHaveLength(1);
          const server = startStackspec(inCommand(serve.text).split(/\s+/).slice(1), { cwd, env });
          servers.push({
            child: server.child,
            out: server.out,
            exited: server.exited,
            signal: (s) => server.child.kill(s),
            get running() {
              return server.child.exitCode === null && server.child.signalCode === null;
            },
          });
          await server.waitFor(/health +\S+\n/);
          compare(serve.line, `$ ${serve.text}`, serve.expected, asShown(server.out()));
          return;
        }
        // One shell for the block, as a terminal session: `cd` and `$?` carry over. Each
        // command's output ends with a separator line; `$?` is restored after it.
        const script = block.commands
          .map((c) => {
            const cat = /^cat (\S+)$/.exec(c.text);
            const run =
              cat?.[1] && cwd.startsWith(scratch)
                ? `mkdir -p "$(dirname '${cat[1]}')" && cat > '${cat[1]}' <<'STACKSPEC_PAGE'\n${inCommand(trimLines(c.expected).join('\n'))}\nSTACKSPEC_PAGE`
                : inCommand(c.text);
            return `{ ${run}\n} 2>&1; __rc=$?; printf '\\n${SEPARATOR}\\n'; (exit $__rc)`;
          })
          .join('\n');
        const r = shell(script, { cwd, env, shimDir: shims });
        const outputs = asShown(r.out).split(`\n${SEPARATOR}\n`);
        block.commands.forEach((command, i) => {
          if (/^cat \S+$/.test(command.text) && cwd.startsWith(scratch)) return;
          compare(command.line, `$ ${command.text}`, command.expected, outputs[i] ?? '');
        });
      });
    }
  });
}
