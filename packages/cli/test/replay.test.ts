// How replay.ts reads a page: sessions, captioned files and the directives of replay.ts's header.
import { describe, expect, it } from 'vitest';
import { readPageDirectives, readSessions } from './replay.js';

const page = (...lines: string[]) => `${lines.join('\n')}\n`;

describe('readSessions', () => {
  it('writes a captioned block to the folder of the last replay-in, the caption not in the body', () => {
    const blocks = readSessions(
      page(
        '<!-- replay-in: /tmp/stackspec-try/es -->',
        '```console',
        '$ ls',
        '```',
        '',
        'File: `flavors/compute.yaml`',
        '',
        '```yaml',
        'flavors:',
        '  - name: c1',
        '```',
        '<!-- replay-file: notes.txt -->',
        '```text',
        'hello',
        '```',
      ),
    );
    expect(blocks.map((b) => b.file)).toEqual([
      undefined,
      { path: 'flavors/compute.yaml', folder: '/tmp/stackspec-try/es', body: 'flavors:\n  - name: c1\n' },
      { path: 'notes.txt', folder: '/tmp/stackspec-try/es', body: 'hello\n' },
    ]);
    expect(blocks[1]?.line).toBe(8);
  });

  it('leaves uncaptioned blocks of other languages alone, even when they hold console fences', () => {
    const blocks = readSessions(
      page('```markdown', '```console', '$ rm -rf /', '```', '', '```yaml', 'a: 1', '```'),
    );
    expect(blocks).toEqual([]);
  });

  it('forgets a caption when text comes between it and the block', () => {
    expect(readSessions(page('File: `a.yaml`', 'Some words.', '```yaml', 'a: 1', '```'))).toEqual([]);
  });

  it('reads background and interrupt blocks', () => {
    const blocks = readSessions(
      page(
        '<!-- replay-background -->',
        '```console',
        '$ node server.mjs --port 8774',
        'listening on http://127.0.0.1:8774',
        '```',
        '<!-- replay-interrupt -->',
        '```text',
        'listening on http://127.0.0.1:8774',
        'bye',
        '```',
      ),
    );
    expect(blocks[0]).toMatchObject({
      background: true,
      commands: [{ text: 'node server.mjs --port 8774', line: 3 }],
    });
    expect(blocks[1]).toMatchObject({
      interrupt: { expected: ['listening on http://127.0.0.1:8774', 'bye'] },
    });
  });

  it('refuses a background block with more than one command, and unknown directives', () => {
    expect(() => readSessions(page('<!-- replay-background -->', '```console', '$ a', '$ b', '```'))).toThrow(
      /exactly one command/,
    );
    expect(() => readSessions(page('<!-- replay-later: x -->', '```console', '$ a', '```'))).toThrow(
      /unknown directive replay-later/,
    );
  });
});

describe('readPageDirectives', () => {
  it('collects the pages to prepare from and the extra ports', () => {
    expect(
      readPageDirectives(
        page('<!-- replay-prepare: docs/README.md -->', 'text', '<!-- replay-ports: 8774 8775 -->'),
      ),
    ).toEqual({ prepare: ['docs/README.md'], ports: ['8774', '8775'] });
  });
});
