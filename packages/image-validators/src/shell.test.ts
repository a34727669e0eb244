import { spawnSync } from 'node:child_process';
import { isStackspecError } from '@stackspec/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportLine, isShellName, shellQuote, withEnv } from './shell.js';

const sh = (script: string) => spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8' });

describe('shell quoting', () => {
  it('leaves plain words bare so commands read like Sahara', () => {
    expect(shellQuote('nfs-utils')).toBe('nfs-utils');
    expect(shellQuote('lzo-2.0')).toBe('lzo-2.0');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });

  it('passes any string through a real shell unchanged', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }).filter((s) => !s.includes('\u0000')),
        (s) => {
          const r = sh(`printf '%s' ${shellQuote(s)}`);
          expect(r.stdout).toBe(s);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses NUL bytes', () => {
    try {
      shellQuote('a\u0000b');
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('image/shell/nul-byte');
    }
  });

  it('checks variable names and exports values literally', () => {
    expect(isShellName('java_distro')).toBe(true);
    expect(isShellName('1x')).toBe(false);
    expect(isShellName('a-b')).toBe(false);
    expect(() => exportLine('a;b', 'x')).toThrow(/cannot be used/);
    const r = sh(`${withEnv('printf %s "$V"', { V: '$(echo pwned) `id` ; x' })}`);
    expect(r.stdout).toBe('$(echo pwned) `id` ; x');
    expect(withEnv('true', {})).toBe('true');
  });

  it('names the variable whose value holds a NUL byte', () => {
    expect(() => exportLine('JRE_HOME', 'a\u0000b')).toThrow(
      expect.objectContaining({ code: 'image/shell/nul-byte', message: expect.stringContaining('JRE_HOME') }),
    );
    expect(() => withEnv('true', { V: '\u0000' })).toThrow(
      expect.objectContaining({ code: 'image/shell/nul-byte' }),
    );
  });
});
