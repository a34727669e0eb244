import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scriptFile } from '../commands.js';
import { parseScriptFile } from './dry-run.js';

describe('parseScriptFile', () => {
  it('reads the exports and the body of both layouts', () => {
    expect(parseScriptFile("export a=1\nexport b='x y'\necho body\n")).toEqual({
      env: { a: '1', b: 'x y' },
      body: 'echo body\n',
    });
    // Batched layout: the #! line first, above the exports; it stays on the body.
    expect(parseScriptFile('#!/bin/bash\nexport a=1\necho hi')).toEqual({
      env: { a: '1' },
      body: '#!/bin/bash\necho hi',
    });
    // No exports: Sahara still writes the newline between them and the body.
    expect(parseScriptFile('\necho hi')).toEqual({ env: {}, body: 'echo hi' });
  });

  it('reads quoted values across lines and with escaped quotes', () => {
    expect(parseScriptFile("export a='line 1\nline 2'\nexport b='it'\\''s'\ntrue").env).toEqual({
      a: 'line 1\nline 2',
      b: "it's",
    });
  });

  it('starts the body at a line that is not a whole export, such as an unclosed quote', () => {
    expect(parseScriptFile("export a='x\nexport b=1\necho")).toEqual({
      env: {},
      body: "export a='x\nexport b=1\necho",
    });
    expect(parseScriptFile('export a=1\nexport b=2; rm -rf /\necho')).toEqual({
      env: { a: '1' },
      body: 'export b=2; rm -rf /\necho',
    });
  });

  it('inverts scriptFile for any exported values and body', () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
    const value = fc.string({ unit: 'binary' }).filter((s) => !s.includes('\u0000'));
    const body = fc.string().filter((b) => !b.startsWith('export ') && !b.startsWith('#!'));
    fc.assert(
      fc.property(fc.dictionary(name, value, { maxKeys: 5 }), body, (env, text) => {
        const parsed = parseScriptFile(scriptFile(Object.entries(env), text, false));
        expect(parsed).toEqual({ env, body: text });
      }),
      { numRuns: 300 },
    );
  });
});
