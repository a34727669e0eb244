// The contract every FileChecker passes (core's `FileChecker`): each spec
// package runs this suite against its own checkers from its `test/` folder.
// A checker recognises its own files and none of the other kinds' samples,
// never throws whatever the text, returns located diagnostics, and reads the
// files it refers to through the context's reader and nothing else: a spy
// reader over files that exist only in memory proves it, and a missing, FIFO
// or oversized reference, from a fake reader and from the disk, is a
// diagnostic rather than a throw.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  createDiagnostic,
  createMemoryResourceReader,
  type Diagnostic,
  type FileChecker,
  type ResourceReader,
  type ResourceReadResult,
  validateDocument,
} from '@stackspec/core';
import { createNodeResourceReader } from '@stackspec/core/node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A file as the suite hands it to a checker. */
export interface ContractFile {
  /** The path reports show; its folder is where the reader looks. */
  path: string;
  text: string;
}

/** One small, valid file of each kind the five spec packages check. */
export const KIND_SAMPLES: Readonly<Record<string, readonly ContractFile[]>> = {
  flavor: [
    {
      path: 'flavors/m1.yaml',
      text: 'name: m1.small\nvcpus: 1\nram: 512\nextra_specs:\n  hw:cpu_policy: dedicated\n',
    },
    { path: 'flavors/all.yaml', text: 'flavors:\n  - name: m1\n    extra_specs: {}\n' },
  ],
  'deploy-template': [
    {
      path: 'templates/raid.yaml',
      text: 'name: CUSTOM_RAID\nsteps:\n  - interface: raid\n    step: delete_configuration\n    args: {}\n    priority: 10\n',
    },
  ],
  'image-spec': [{ path: 'image/image.yaml', text: 'validators:\n  - package: wget\n' }],
  'heat-template': [{ path: 'heat/server.yaml', text: 'heat_template_version: 2021-04-16\nresources: {}\n' }],
  'heat-environment': [
    { path: 'heat/env.yaml', text: 'parameter_defaults:\n  Count: 1\nresource_registry: {}\n' },
  ],
  'placement-inventory': [
    {
      path: 'cloud/inventory.yaml',
      text: 'providers:\n  - name: cn1\n    inventories:\n      VCPU: {total: 8}\n',
    },
  ],
};

/** What {@link describeCheckerContract} needs to know about one checker. */
export interface CheckerContractOptions<Options> {
  checker: FileChecker<Options>;
  /** Files of its kind that it must recognise (besides its {@link KIND_SAMPLES}). */
  fixtures?: readonly ContractFile[];
  /** Files of its kind with at least one problem each: every diagnostic must be located. */
  invalid: readonly ContractFile[];
  /**
   * A file that refers to another, for checkers that read references
   * (`reference` is the path as the reader is asked for it, relative to the
   * file's folder; `content` a valid file there). Without it, the checker
   * must read nothing at all.
   */
  referring?: ContractFile & { reference: string; content: string };
  /** Options passed in the context of every check. */
  options?: Options;
}

/** A reader that records every path asked for and answers from `inner`. */
function spy(inner: ResourceReader): ResourceReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    roots: inner.roots,
    read(path, options) {
      asked.push(path);
      return inner.read(path, options);
    },
  };
}

/** A reader whose every answer is `failure`. */
function failing(failure: Extract<ResourceReadResult, { ok: false }>): ResourceReader {
  return { roots: [''], read: () => failure };
}

function failure(code: string, reason: string, extra: { missing?: boolean; size?: number } = {}) {
  return {
    ok: false as const,
    reason,
    ...extra,
    diagnostic: createDiagnostic({ code, message: `The file cannot be read: ${reason}.` }),
  };
}

const READ_FAILURES = [
  failure('fs/not-found', 'it does not exist', { missing: true }),
  failure('fs/unreadable', 'it is a named pipe (FIFO), not a regular file'),
  failure('fs/unreadable', 'permission denied'),
  failure('fs/too-large', 'it holds 2147483648 bytes, more than the limit of 2097152 bytes', {
    size: 2 * 1024 ** 3,
  }),
];

// Keys every kind is recognised by, their misspellings, and names that have tripped up parsers.
const KEYS = [
  'extra_specs',
  'extra_spec',
  'flavors',
  'properties',
  'vcpus',
  'ram',
  'name',
  'steps',
  'step',
  'deploy_templates',
  'interface',
  'priority',
  'validators',
  'validator',
  'package',
  'script',
  'arguments',
  'heat_template_version',
  'heat_template_verison',
  'resources',
  'resource_registry',
  'resource_registy',
  'parameter_defaults',
  'requires',
  'providers',
  'inventories',
  'total',
  'driver_steps',
  '__proto__',
  'constructor',
  'toString',
];

const documentValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.jsonValue({ maxDepth: 2 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 12 })), tie('value'), {
      maxKeys: 5,
    }),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
})).value;

// Text that is close to YAML: fragments of the samples, keys and punctuation that YAML gives meaning.
const yamlish = fc
  .array(
    fc.oneof(
      fc.constantFrom(...KEYS.map((k) => `${k}: `)),
      fc.constantFrom(
        '\n',
        '\n  ',
        '- ',
        '[',
        ']',
        '{',
        '}',
        ': ',
        ', ',
        '&a ',
        '*a',
        '!!',
        '? ',
        '|',
        '#',
        '"',
        "'",
      ),
      fc.string({ maxLength: 8 }),
      fc.constantFrom(...Object.values(KIND_SAMPLES).flatMap((files) => files.map((f) => f.text))),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

function isLocated(d: Diagnostic, file: string): void {
  expect(d.code, JSON.stringify(d)).toMatch(/^[a-z0-9-]+(\/[a-z0-9-]+)+$/);
  expect(['error', 'warning', 'info']).toContain(d.severity);
  expect(typeof d.message === 'string' && d.message.length > 0, JSON.stringify(d)).toBe(true);
  expect(d.file, JSON.stringify(d)).toBe(file);
  expect(Number.isInteger(d.line) && (d.line as number) >= 1, JSON.stringify(d)).toBe(true);
}

function isDiagnostic(d: Diagnostic): void {
  expect(typeof d.code).toBe('string');
  expect(['error', 'warning', 'info']).toContain(d.severity);
  expect(typeof d.message).toBe('string');
}

/**
 * Runs the checker contract against one checker. Call it from a package's
 * `test/` folder with that package's checker, fixtures and options.
 */
export function describeCheckerContract<Options>(opts: CheckerContractOptions<Options>): void {
  const { checker } = opts;
  const own = [...(KIND_SAMPLES[checker.kind] ?? []), ...(opts.fixtures ?? [])];
  const parse = (file: ContractFile) => {
    const parsed = validateDocument(file.text, { filename: file.path, duplicateKeys: 'warn' });
    if (!parsed.ok)
      throw new Error(`The fixture ${file.path} does not parse: ${parsed.diagnostics[0]?.message}`);
    return { ...file, document: parsed.document };
  };
  const check = (file: ContractFile, reader: ResourceReader) =>
    checker.check(parse(file), {
      reader,
      ...(opts.options !== undefined ? { options: opts.options } : {}),
    });

  describe(`${checker.kind} checker contract`, () => {
    it('names its kind in kebab-case and says what reports call it', () => {
      expect(checker.kind).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(checker.label.trim()).not.toBe('');
    });

    it('recognises its own files, as written', () => {
      expect(own.length).toBeGreaterThan(0);
      for (const file of [...own, ...opts.invalid]) {
        const r = checker.recognise(parse(file));
        expect(r, file.path).toBeDefined();
        expect(r?.confidence).toBeGreaterThan(0);
        expect(r?.confidence).toBeLessThanOrEqual(1);
        expect(r?.misspelt, file.path).toBeUndefined();
      }
    });

    it("claims none of the other kinds' files", () => {
      for (const [kind, files] of Object.entries(KIND_SAMPLES)) {
        if (kind === checker.kind) continue;
        for (const file of files)
          expect(checker.recognise(parse(file)), `${kind}: ${file.path}`).toBeUndefined();
      }
    });

    it('passes its valid files without errors', async () => {
      const reader = createMemoryResourceReader(
        opts.referring ? { [opts.referring.reference]: opts.referring.content } : {},
      );
      for (const file of own) {
        const found = await check(file, reader);
        expect(
          found.filter((d) => d.severity === 'error'),
          file.path,
        ).toEqual([]);
      }
    });

    it('locates every problem: code, severity, message, file and line', async () => {
      expect(opts.invalid.length).toBeGreaterThan(0);
      for (const file of opts.invalid) {
        const found = await check(file, createMemoryResourceReader({}));
        expect(found.length, file.path).toBeGreaterThan(0);
        for (const d of found) isLocated(d, file.path);
      }
    });

    it('never throws, whatever the text: random text and random YAML give diagnostics or nothing', async () => {
      const reader = createMemoryResourceReader({ 'x.yaml': 'heat_template_version: 2021-04-16\n' });
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            yamlish,
            fc.string({ maxLength: 200 }),
            documentValue.map((v) => JSON.stringify(v) ?? ''),
          ),
          fc.constantFrom('x.yaml', 'nested/dir/x.json', 'stackspec.config.yaml'),
          async (text, path) => {
            checker.recognise({ path, text });
            const parsed = validateDocument(text, { filename: path, duplicateKeys: 'warn' });
            if (!parsed.ok) return;
            checker.recognise({ path, text, document: parsed.document });
            const found = await checker.check({ path, text, document: parsed.document }, { reader });
            expect(Array.isArray(found)).toBe(true);
            for (const d of found) isDiagnostic(d);
          },
        ),
        { numRuns: 150 },
      );
    });

    if (!opts.referring) {
      it('reads no file: its checks ask the reader for nothing', async () => {
        for (const file of [...own, ...opts.invalid]) {
          const reader = spy(createMemoryResourceReader({}));
          await check(file, reader);
          expect(reader.asked, file.path).toEqual([]);
        }
      });
      return;
    }

    const referring = opts.referring;
    it('reads a referenced file through the reader only: one that exists only in memory is found', async () => {
      // The path is in no real folder: had the checker gone to the disk, the reference would be missing.
      const virtual = { ...referring, path: `/nonexistent-${process.pid}/${referring.path}` };
      const reader = spy(createMemoryResourceReader({ [referring.reference]: referring.content }));
      const found = await check(virtual, reader);
      expect(reader.asked).toContain(referring.reference);
      expect(found.filter((d) => d.severity !== 'info')).toEqual([]);
      const without = await check(virtual, spy(createMemoryResourceReader({})));
      expect(without.length).toBeGreaterThan(0);
    });

    it('reports a missing, unreadable or oversized reference as a located diagnostic, not a throw', async () => {
      for (const f of READ_FAILURES) {
        const found = await check(referring, failing(f));
        expect(found.length, f.reason).toBeGreaterThan(0);
        for (const d of found) isLocated(d, referring.path);
      }
    });

    describe('against the disk', () => {
      let dir: string;
      beforeAll(() => {
        dir = mkdtempSync(join(tmpdir(), `stackspec-${checker.kind}-contract-`));
      });
      afterAll(() => rmSync(dir, { recursive: true, force: true }));

      const place = (name: string) => {
        const target = join(dir, name, referring.reference);
        mkdirSync(dirname(target), { recursive: true });
        return target;
      };

      it('reports a reference that is a FIFO without waiting for a writer', async () => {
        const target = place('fifo');
        expect(spawnSync('mkfifo', [target]).status).toBe(0);
        const found = await check(referring, createNodeResourceReader({ roots: [join(dir, 'fifo')] }));
        expect(found.some((d) => /FIFO/.test(d.message))).toBe(true);
        for (const d of found) isLocated(d, referring.path);
      });

      it('reports a reference of 2 GB without reading it', async () => {
        const target = place('huge');
        writeFileSync(target, '');
        truncateSync(target, 2 * 1024 ** 3);
        const before = process.memoryUsage().rss;
        const found = await check(referring, createNodeResourceReader({ roots: [join(dir, 'huge')] }));
        expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 ** 2);
        expect(found.length).toBeGreaterThan(0);
        for (const d of found) isLocated(d, referring.path);
      });

      it('finds a reference that is there', async () => {
        const target = place('ok');
        writeFileSync(target, referring.content);
        const found = await check(referring, createNodeResourceReader({ roots: [join(dir, 'ok')] }));
        expect(found.filter((d) => d.severity !== 'info')).toEqual([]);
      });
    });
  });
}
