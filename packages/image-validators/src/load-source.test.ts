import { createMemoryResourceReader, type ResourceReader } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { loadImageSpec, validateImageSpec } from './load.js';

const SCRIPT_SPEC = 'validators:\n  - script: common/setup.sh\n  - copy_script: common/resources/file.sh\n';

function spy(inner: ResourceReader): ResourceReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    roots: inner.roots,
    read: (path, options) => {
      asked.push(path);
      return inner.read(path, options);
    },
  };
}

describe('validateImageSpec with a source and a reader', () => {
  it('reads every script through the reader, by the path the spec gives, and nothing else', () => {
    const reader = spy(
      createMemoryResourceReader(
        { 'res/common/setup.sh': 'echo setup\n', 'res/common/resources/file.sh': 'echo copied\n' },
        { roots: ['res'] },
      ),
    );
    const spec = loadImageSpec({ text: SCRIPT_SPEC, file: 'plugin/image.yaml' }, { reader });
    expect(reader.asked).toEqual(['common/setup.sh', 'common/resources/file.sh']);
    expect(spec.file).toBe('plugin/image.yaml');
    expect(spec.resourceRoots).toEqual(['res']);
    expect(spec.validators).toMatchObject([
      {
        kind: 'script',
        body: 'echo setup\n',
        scriptPath: 'res/common/setup.sh',
        file: 'plugin/image.yaml',
        line: 2,
      },
      { kind: 'copy_script', body: 'echo copied\n', target: '/tmp/file.sh' },
    ]);
  });

  it('takes the text as text, never as a path, even when it looks like one', () => {
    const r = validateImageSpec({ text: 'image.yaml' });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['image/spec/not-a-mapping']);
  });

  it('finds no script without a reader, and says that no roots were given', () => {
    const r = validateImageSpec({ text: 'validators:\n  - script: common/setup.sh\n', file: 'image.yaml' });
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        code: 'image/spec/script-not-found',
        file: 'image.yaml',
        line: 2,
        hint: expect.stringContaining('No resource roots were given'),
      }),
    ]);
  });

  it("turns the reader's refusals into the spec's codes, at the script", () => {
    const answer = (failure: Parameters<typeof failing>[0]) =>
      validateImageSpec(
        { text: 'validators:\n  - script: x.sh\n', file: 'i.yaml' },
        { reader: failing(failure) },
      ).diagnostics[0];
    expect(answer({ outside: true, reason: 'it leaves the resource roots' })).toMatchObject({
      code: 'image/spec/path-escapes-roots',
      line: 2,
    });
    expect(answer({ size: 99_000_000, reason: 'too big' })).toMatchObject({
      code: 'image/spec/resource-too-large',
      message: "The resource 'x.sh' is 99000000 bytes, more than the limit of 16777216 bytes.",
    });
    expect(
      answer({ reason: 'it is a named pipe (FIFO), not a regular file', file: '/r/x.sh' }),
    ).toMatchObject({
      code: 'image/spec/resource-unreadable',
      message: "The resource 'x.sh' cannot be read: it is a named pipe (FIFO), not a regular file (/r/x.sh).",
    });
    expect(answer({ missing: true, reason: 'it does not exist' })).toMatchObject({
      code: 'image/spec/script-not-found',
    });
  });

  it('takes a string as text when a reader is given, in the older form', () => {
    const reader = createMemoryResourceReader({ 'common/setup.sh': 'true\n' });
    const r = validateImageSpec('validators:\n  - script: common/setup.sh\n', { reader, filename: 'x.yaml' });
    expect(r.ok).toBe(true);
    expect(validateImageSpec('image.yaml', { reader }).diagnostics[0]?.code).toBe('image/spec/not-a-mapping');
  });
});

function failing(f: { reason: string; missing?: boolean; outside?: boolean; size?: number; file?: string }) {
  const reader: ResourceReader = {
    roots: ['/r'],
    read: () => ({
      ok: false,
      reason: f.reason,
      ...(f.missing ? { missing: true } : {}),
      ...(f.outside ? { outside: true } : {}),
      ...(f.size !== undefined ? { size: f.size } : {}),
      diagnostic: {
        code: 'fs/x',
        severity: 'error',
        message: 'No.',
        path: '',
        ...(f.file ? { file: f.file } : {}),
      },
    }),
  };
  return reader;
}
