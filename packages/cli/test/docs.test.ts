// The console sessions of the stackspec guide and of the example cloud's README,
// replayed: every `$ command` runs (with the workspace's commands on PATH, built
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
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binEnv, REPO, type Running, shell, startStackspec, writeShims } from './process.js';

const PAGES = ['docs/guides/stackspec-cli.md', 'examples/cloud/README.md'];
const SCRATCH = '/tmp/stackspec-try';
const SEPARATOR = '\u001e-- end of command --';

interface Command {
  line: number;
  text: string;
  expected: string[];
}

interface Block {
  line: number;
  cwd?: string;
  setup: string[];
  skip?: string;
  commands: Command[];
}

/** The console blocks of a Markdown page, with the directives above each. */
function readSessions(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let directives: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const directive = /^<!-- (replay-[a-z]+): ?(.*?) ?-->$/.exec(line);
    if (directive) {
      directives.push(`${directive[1]}\u0000${directive[2]}`);
      continue;
    }
    if (line !== '```console') {
      if (line.trim() !== '') directives = [];
      continue;
    }
    const block: Block = { line: i + 1, setup: [], commands: [] };
    for (const d of directives) {
      const [name, value = ''] = d.split('\u0000');
      if (name === 'replay-in') block.cwd = value;
      else if (name === 'replay-setup') block.setup.push(value);
      else if (name === 'replay-skip') block.skip = value;
      else throw new Error(`line ${i}: unknown directive ${name}`);
    }
    directives = [];
    for (i += 1; i < lines.length && lines[i] !== '```'; i += 1) {
      const text = lines[i] ?? '';
      if (text.startsWith('$ ')) block.commands.push({ line: i + 1, text: text.slice(2), expected: [] });
      else block.commands.at(-1)?.expected.push(text);
    }
    blocks.push(block);
  }
  return blocks;
}

function trimLines(lines: readonly string[]): string[] {
  const out = lines.map((l) => l.replace(/\s+$/, ''));
  while (out.length && out.at(-1) === '') out.pop();
  return out;
}

/** Whether `actual` is what `expected` shows, `…` standing for any text (or, alone on a line, any lines). */
function outputMatches(expected: readonly string[], actual: readonly string[]): boolean {
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

describe('outputMatches', () => {
  it('takes … for any text and a lone … for any lines', () => {
    expect(outputMatches(['a…c', '…', 'z'], ['abc', 'x', 'y', 'z'])).toBe(true);
    expect(outputMatches(['a', '…'], ['a'])).toBe(true);
    expect(outputMatches(['a…c'], ['abd'])).toBe(false);
    expect(outputMatches(['a', 'b'], ['a', 'b', 'c'])).toBe(false);
    expect(outputMatches(['(x) [y]'], ['(x) [y]'])).toBe(true);
  });
});

let shims: string;
beforeAll(() => {
  shims = mkdtempSync(join(tmpdir(), 'stackspec-shims-'));
  writeShims(shims);
});
afterAll(() => rmSync(shims, { recursive: true, force: true }));

for (const page of PAGES) {
  describe(`the console sessions of ${page}`, () => {
    const blocks = readSessions(readFileSync(join(REPO, page), 'utf8'));
    let scratch: string;
    // Each port the page shows (8080, 8081…) stands for a free port of this run.
    const ports = new Map<string, string>();
    const servers: Running[] = [];
    beforeAll(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'stackspec-try-'));
      for (const shown of new Set(readFileSync(join(REPO, page), 'utf8').match(/\b808\d\b/g) ?? [])) {
        ports.set(shown, String(await freePort()));
      }
    });
    afterAll(async () => {
      for (const s of servers) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
      rmSync(scratch, { recursive: true, force: true });
    });

    const inCommand = (text: string) => {
      let out = text.replaceAll(SCRATCH, scratch);
      for (const [shown, real] of ports) {
        out = out
          .replaceAll(`127.0.0.1:${shown}`, `127.0.0.1:${real}`)
          .replaceAll(`--port ${shown}`, `--port ${real}`);
      }
      return out;
    };
    const asShown = (text: string) => {
      let out = text.replaceAll(scratch, SCRATCH);
      for (const [shown, real] of ports) out = out.replaceAll(`127.0.0.1:${real}`, `127.0.0.1:${shown}`);
      return out;
    };

    it('has sessions to replay', () => {
      expect(blocks.filter((b) => !b.skip).length).toBeGreaterThan(0);
    });

    for (const block of blocks) {
      const title = `line ${block.line}: ${block.commands
        .map((c) => `$ ${c.text}`)
        .join('; ')
        .slice(0, 120)}`;
      it.skipIf(block.skip !== undefined)(title, { timeout: 300_000 }, async () => {
        const cwd = block.cwd ? inCommand(block.cwd) : REPO;
        mkdirSync(cwd, { recursive: true });
        const env = binEnv({ REPO });
        const compare = (command: Command, output: string) => {
          const expected = trimLines(command.expected);
          const actual = trimLines(output.split('\n'));
          if (outputMatches(expected, actual)) return;
          const where = `${page}:${command.line}: $ ${command.text}`;
          expect(actual.join('\n'), `${where}\n(the page shows the expected side)`).toBe(expected.join('\n'));
        };
        for (const setup of block.setup) {
          execFileSync('/bin/sh', ['-c', inCommand(setup)], {
            cwd,
            env: { ...env, PATH: `${shims}:${env.PATH}` },
          });
        }
        const serve = block.commands.find((c) => c.text.startsWith('stackspec serve '));
        if (serve) {
          // A server keeps running for the blocks after it; it is a block of its own.
          expect(
            block.commands,
            `${page}:${serve.line}: stackspec serve must be alone in its block`,
          ).toHaveLength(1);
          const server = startStackspec(inCommand(serve.text).split(/\s+/).slice(1), { cwd });
          servers.push(server);
          await server.waitFor(/health +\S+\n/);
          compare(serve, asShown(server.out()));
          return;
        }
        // One shell for the block, as a terminal session: `cd` and `$?` carry over. Each
        // command's output ends with a separator line; `$?` is restored after it.
        const script = block.commands
          .map((c) => {
            const cat = /^cat (\S+)$/.exec(c.text);
            const run =
              cat?.[1] && cwd.startsWith(scratch)
                ? `mkdir -p "$(dirname '${cat[1]}')" && cat > '${cat[1]}' <<'STACKSPEC_PAGE'\n${trimLines(c.expected).join('\n')}\nSTACKSPEC_PAGE`
                : inCommand(c.text);
            return `{ ${run}\n} 2>&1; __rc=$?; printf '\\n${SEPARATOR}\\n'; (exit $__rc)`;
          })
          .join('\n');
        const r = shell(script, { cwd, env, shimDir: shims });
        const outputs = asShown(r.out).split(`\n${SEPARATOR}\n`);
        block.commands.forEach((command, i) => {
          if (/^cat \S+$/.test(command.text) && cwd.startsWith(scratch)) return;
          compare(command, outputs[i] ?? '');
        });
      });
    }
  });
}
