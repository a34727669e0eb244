import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../../../test-support/cli.js';
import { createDiagnostic } from '../diagnostic.js';
import { ConflictError, HttpError, NotFoundError, SpecError, ValidationError } from '../errors.js';
import { createColors, shouldUseColor, stripAnsi } from './color.js';
import { formatDiagnostics } from './diagnostics.js';
import { createProgress } from './progress.js';
import {
  addFormatOption,
  addOutputOptions,
  createProgram,
  EXIT,
  exitCodeFor,
  REPORT_FORMATS,
  runCli,
  usage,
} from './run.js';
import { UsageError } from './usage-error.js';

const fakeIO = (env: Record<string, string> = {}) => memoryIO({ env, cwd: '/' });

describe('exit codes', () => {
  it('maps the error family onto 0, 1 and 2', () => {
    expect(exitCodeFor(new ValidationError('x'))).toBe(EXIT.findings);
    expect(exitCodeFor(new NotFoundError('x'))).toBe(1);
    expect(exitCodeFor(new ConflictError('x'))).toBe(1);
    expect(exitCodeFor(new SpecError('x'))).toBe(EXIT.usage);
    expect(exitCodeFor(new UsageError('x'))).toBe(2);
    expect(exitCodeFor(new Error('x'))).toBe(EXIT.failure);
    expect(exitCodeFor('a thrown string')).toBe(2);
  });
});

describe('runCli', () => {
  it('returns the body exit code, 0 by default', async () => {
    expect(await runCli(() => undefined, fakeIO())).toBe(0);
    expect(await runCli(async () => 1, fakeIO())).toBe(1);
  });

  it('prints a one-line error with its hint', async () => {
    const io = fakeIO();
    expect(await runCli(() => usage('Give --flavor.', 'Try --flavor m1.small.'), io)).toBe(2);
    expect(io.err()).toBe('error: Give --flavor.\nhint: Try --flavor m1.small.\n');
  });

  it('prints located diagnostics as a report', async () => {
    const io = fakeIO();
    const e = new ValidationError(undefined, {
      diagnostics: [
        createDiagnostic({ code: 'yaml/syntax', message: 'Bad.', file: 'a.yaml', line: 2, column: 3 }),
      ],
    });
    expect(await runCli(() => Promise.reject(e), io)).toBe(1);
    expect(io.err()).toContain('a.yaml:2:3  error  Bad.  (yaml/syntax)');
  });

  it('labels unexpected errors as bugs, exits 2 and shows the stack only on request', async () => {
    const io = fakeIO();
    expect(
      await runCli(() => {
        throw new TypeError('oops');
      }, io),
    ).toBe(2);
    expect(io.err()).toContain('internal error: oops');
    expect(io.err()).not.toContain('at ');
    const debug = fakeIO({ STACKSPEC_DEBUG: '1' });
    await runCli(() => {
      throw new TypeError('oops');
    }, debug);
    expect(debug.err()).toContain('TypeError: oops');
  });
});

describe('runCli in the OpenStack client style', () => {
  const openstack = { errorStyle: 'openstack' } as const;

  it('prints a refused request as the bare message with its HTTP status, exit 1', async () => {
    const io = fakeIO();
    const e = new ConflictError('A deploy template with name CUSTOM_E already exists.');
    expect(await runCli(() => Promise.reject(e), io, openstack)).toBe(1);
    expect(io.err()).toBe('A deploy template with name CUSTOM_E already exists. (HTTP 409)\n');
  });

  it('does not repeat an HTTP status the message already ends with, nor print hints', async () => {
    const io = fakeIO();
    const e = new HttpError(503, 'Service unavailable (HTTP 503)', {
      diagnostics: [createDiagnostic({ code: 'http/error', message: 'x', hint: 'retry later' })],
    });
    expect(await runCli(() => Promise.reject(e), io, openstack)).toBe(1);
    expect(io.err()).toBe('Service unavailable (HTTP 503)\n');
  });

  it('reports diagnostics that point into a file, exit 2', async () => {
    const io = fakeIO();
    const e = new ValidationError(undefined, {
      diagnostics: [
        createDiagnostic({ code: 'yaml/syntax', message: 'Bad.', file: 'steps.yaml', line: 2, column: 3 }),
      ],
    });
    expect(await runCli(() => Promise.reject(e), io, openstack)).toBe(2);
    expect(io.err()).toContain('steps.yaml:2:3  error  Bad.  (yaml/syntax)');
  });

  it('prints usage errors and unexpected errors as the default style does', async () => {
    const io = fakeIO();
    expect(await runCli(() => usage('Give --name.', 'Try --name CUSTOM_X.'), io, openstack)).toBe(2);
    expect(io.err()).toBe('error: Give --name.\nhint: Try --name CUSTOM_X.\n');
    const bug = fakeIO();
    expect(
      await runCli(
        () => {
          throw new TypeError('oops');
        },
        bug,
        openstack,
      ),
    ).toBe(2);
    expect(bug.err()).toContain('internal error: oops');
  });

  it('keeps the default style unchanged', async () => {
    const io = fakeIO();
    expect(await runCli(() => Promise.reject(new NotFoundError('No such template.')), io)).toBe(1);
    expect(io.err()).toBe('error: No such template.\n');
  });
});

describe('createProgram', () => {
  it('turns parse errors into exit code 2 and writes to the given streams', async () => {
    const io = fakeIO();
    const program = createProgram('tool', io);
    program.option('--x <n>');
    const code = await runCli(async () => {
      await program.parseAsync(['--bogus'], { from: 'user' });
      return 0;
    }, io);
    expect(code).toBe(2);
    expect(io.err()).toContain("unknown option '--bogus'");
  });

  it('exits 0 for --help', async () => {
    const io = fakeIO();
    const program = createProgram('tool', io).description('does things');
    const code = await runCli(async () => {
      await program.parseAsync(['--help'], { from: 'user' });
      return 0;
    }, io);
    expect(code).toBe(0);
    expect(io.out()).toContain('does things');
  });

  it('adds the OpenStack client output options', async () => {
    const io = fakeIO();
    let seen: unknown;
    const program = createProgram('tool', io);
    addOutputOptions(program.command('list'), 'list').action((opts) => {
      seen = opts;
    });
    await program.parseAsync(['list', '-f', 'json', '-c', 'uuid', '-c', 'name', '--noindent'], {
      from: 'user',
    });
    expect(seen).toEqual({ format: 'json', column: ['uuid', 'name'], noindent: true });
    const bad = await runCli(async () => {
      await program.parseAsync(['list', '-f', 'shell'], { from: 'user' });
    }, io);
    expect(bad).toBe(2);
  });
});

describe('the shared flags', () => {
  it('print the version given, with --version or -V, and exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      const io = fakeIO();
      const program = createProgram('tool', io, { version: '1.2.3' });
      const code = await runCli(async () => {
        await program.parseAsync([flag], { from: 'user' });
      }, io);
      expect([code, io.out()]).toEqual([0, '1.2.3\n']);
    }
  });

  it('spell the output format -f/--format, refusing other choices with exit 2', async () => {
    const io = fakeIO();
    let seen: unknown;
    const program = createProgram('tool', io);
    addFormatOption(program.command('check'), REPORT_FORMATS, 'text').action((opts) => {
      seen = opts;
    });
    await program.parseAsync(['check', '-f', 'github'], { from: 'user' });
    expect(seen).toEqual({ format: 'github' });
    await program.parseAsync(['check', '--format', 'sarif'], { from: 'user' });
    expect(seen).toEqual({ format: 'sarif' });
    const bad = await runCli(async () => {
      await program.parseAsync(['check', '-f', 'xml'], { from: 'user' });
    }, io);
    expect(bad).toBe(2);
    expect(io.err()).toContain('Allowed choices are text, json, sarif, github.');
  });
});

describe('colour', () => {
  it('follows NO_COLOR, FORCE_COLOR and the TTY', () => {
    expect(shouldUseColor({ stream: { isTTY: true }, env: {} })).toBe(true);
    expect(shouldUseColor({ stream: { isTTY: true }, env: { NO_COLOR: '1' } })).toBe(false);
    expect(shouldUseColor({ stream: { isTTY: false }, env: {} })).toBe(false);
    expect(shouldUseColor({ stream: { isTTY: false }, env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(shouldUseColor({ stream: { isTTY: true }, env: { FORCE_COLOR: '0' } })).toBe(false);
    expect(shouldUseColor({ stream: { isTTY: true }, env: { TERM: 'dumb' } })).toBe(false);
    expect(shouldUseColor({ force: true, env: { NO_COLOR: '1' } })).toBe(true);
  });

  it('wraps text only when enabled', () => {
    expect(createColors({ force: false }).red('x')).toBe('x');
    const c = createColors({ force: true });
    expect(c.red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(stripAnsi(c.bold(c.red('x')))).toBe('x');
  });
});

describe('formatDiagnostics', () => {
  it('groups per file with a summary', () => {
    const text = formatDiagnostics(
      [
        createDiagnostic({
          code: 'extra-specs/unknown-key',
          message: 'Unknown key.',
          file: 'b.yaml',
          line: 4,
          column: 5,
          hint: 'Did you mean hw:cpu_policy?',
        }),
        createDiagnostic({
          code: 'extra-specs/deprecated-key',
          severity: 'warning',
          message: 'Deprecated.',
          file: 'a.yaml',
          line: 1,
        }),
        createDiagnostic({ code: 'x/y', message: 'Whole document.', file: 'b.yaml', path: '/steps' }),
      ],
      { filesChecked: 3 },
    );
    expect(text).toBe(
      [
        'a.yaml:1:1  warning  Deprecated.  (extra-specs/deprecated-key)',
        '',
        'b.yaml  error  Whole document. at /steps  (x/y)',
        'b.yaml:4:5  error  Unknown key.  (extra-specs/unknown-key)',
        '    hint: Did you mean hw:cpu_policy?',
        '',
        '✖ 3 problems (2 errors, 1 warning) in 3 files',
      ].join('\n'),
    );
  });

  it('marks a report with warnings only', () => {
    const text = formatDiagnostics([
      createDiagnostic({ code: 'a/b', severity: 'warning', message: 'w', file: 'f' }),
    ]);
    expect(text.split('\n').pop()).toBe('⚠ 1 problem (0 errors, 1 warning)');
  });

  it('says when there is nothing to report', () => {
    expect(formatDiagnostics([], { filesChecked: 1 })).toBe('✔ no problems in 1 file');
    expect(formatDiagnostics([], { summary: false })).toBe('');
  });
});

describe('createProgress', () => {
  it('redraws in place on a TTY at most every interval', () => {
    const writes: string[] = [];
    let t = 0;
    const p = createProgress(
      { write: (s) => writes.push(s), isTTY: true },
      { enabled: true, intervalMs: 100, delayMs: 0, now: () => t },
    );
    p.update('1/10');
    t = 50;
    p.update('2/10');
    t = 150;
    p.update('3/10');
    p.done();
    expect(writes).toEqual(['\r\u001b[K1/10', '\r\u001b[K3/10', '\r\u001b[K']);
  });

  it('writes nothing when disabled', () => {
    const writes: string[] = [];
    const p = createProgress({ write: (s) => writes.push(s), isTTY: false });
    p.update('x');
    p.done();
    expect(writes).toEqual([]);
  });
});
