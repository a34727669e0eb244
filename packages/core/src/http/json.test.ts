import { describe, expect, it } from 'vitest';
import { isStackspecError } from '../errors.js';
import { jsonResponse, parseJsonBytes, readJsonBody } from './json.js';
import { pyUnicodeDecodeErrorText } from './utf8.js';

const post = (body: string | null) => new Request('http://x/', { method: 'POST', body });

describe('jsonResponse', () => {
  it('serialises the body with a JSON content type', async () => {
    const r = jsonResponse({ a: 1 }, { status: 201, headers: { location: '/x' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('location')).toBe('/x');
    expect(await r.json()).toEqual({ a: 1 });
  });

  it('sends an empty body for undefined', async () => {
    const r = jsonResponse(undefined, { status: 204 });
    expect(await r.text()).toBe('');
    expect(r.headers.get('content-type')).toBeNull();
  });
});

describe('readJsonBody', () => {
  it('accepts a body of exactly the limit and refuses one byte more with a 413', async () => {
    expect(await readJsonBody(post('[1]'), { maxBytes: 3 })).toEqual([1]);
    await expect(readJsonBody(post('[12]'), { maxBytes: 3 })).rejects.toMatchObject({
      code: 'http/body-too-large',
      status: 413,
      message: 'The request body is larger than 3 bytes.',
    });
  });

  it('parses a JSON body', async () => {
    expect(await readJsonBody(post('{"extra_specs": {"hw:cpu_policy": "dedicated"}}'))).toEqual({
      extra_specs: { 'hw:cpu_policy': 'dedicated' },
    });
  });

  it('says where a malformed body breaks', async () => {
    try {
      await readJsonBody(post('{"a": }'));
      expect.unreachable();
    } catch (e) {
      expect(isStackspecError(e) && e.code).toBe('http/invalid-json');
      expect((e as Error).message).toContain('at character 7');
    }
  });

  it('refuses a body nested past the depth limit with a 400, before parsing it', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    await expect(readJsonBody(post(deep))).rejects.toMatchObject({
      code: 'http/too-deep',
      status: 400,
      message: 'The request body nests deeper than the limit of 200 levels (at character 201).',
    });
    expect(await readJsonBody(post('[[["[[[["]]]'), { maxDepth: 3 })).toEqual([[['[[[[']]]);
    await expect(readJsonBody(post('[[[[]]]]'), { maxDepth: 3 })).rejects.toMatchObject({
      code: 'http/too-deep',
    });
  });

  it('joins a body sent in many chunks, multi-byte characters split across them', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ name: 'héllo wörld 😀' }));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.slice(i, i + 3));
        controller.close();
      },
    });
    const req = new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await readJsonBody(req)).toEqual({ name: 'héllo wörld 😀' });
  });

  it('rejects an empty body unless a value is given for it', async () => {
    await expect(readJsonBody(post(null))).rejects.toMatchObject({ code: 'http/empty-body', status: 400 });
    expect(await readJsonBody(post('  '), { emptyValue: {} })).toEqual({});
  });

  it('stops reading past the size limit without trusting Content-Length', async () => {
    const big = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const req = new Request('http://x/', { method: 'POST', body: big, duplex: 'half' } as RequestInit);
    await expect(readJsonBody(req, { maxBytes: 100_000 })).rejects.toMatchObject({
      code: 'http/body-too-large',
      status: 413,
      kind: 'http',
    });
  });

  it('refuses a body that is not UTF-8 instead of storing U+FFFD', async () => {
    const body = Uint8Array.from([
      ...new TextEncoder().encode('{"name": "a'),
      0xff,
      ...new TextEncoder().encode('"}'),
    ]);
    await expect(readJsonBody(new Request('http://x/', { method: 'POST', body }))).rejects.toMatchObject({
      code: 'http/invalid-utf8',
      status: 400,
      message: 'The request body is not valid UTF-8: invalid start byte (0xff) at byte 11.',
    });
    // The old lenient reading stays available on request.
    expect(
      await readJsonBody(new Request('http://x/', { method: 'POST', body }), { utf8: 'replace' }),
    ).toEqual({
      name: 'a\ufffd',
    });
  });

  it("words the UTF-8 error as the caller asks, Python's text for instance", () => {
    const body = Uint8Array.from([0x5b, 0xe2, 0x82, 0x5d]);
    expect(() => parseJsonBytes(body, { describeInvalidUtf8: pyUnicodeDecodeErrorText })).toThrow(
      "'utf-8' codec can't decode bytes in position 1-2: invalid continuation byte",
    );
  });
});

describe('parseJsonBytes', () => {
  it('parses bytes already read, with the same checks', () => {
    expect(parseJsonBytes(new TextEncoder().encode('{"a": [1]}'))).toEqual({ a: [1] });
    expect(() => parseJsonBytes(new Uint8Array(0))).toThrow('The request body is empty');
  });
});
