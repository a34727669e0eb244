import { describe, expect, it } from 'vitest';
import { isStackspecError } from '../errors.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  declaredContentLength,
  readBodyBytes,
  requestTooLargeMessage,
} from './body.js';

const post = (body: string | Uint8Array | null) => new Request('http://x/', { method: 'POST', body });
const streamed = (body: ReadableStream<Uint8Array>) =>
  new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('readBodyBytes', () => {
  it('returns the bytes of a body of exactly the limit and refuses one byte more with a 413', async () => {
    expect(text(await readBodyBytes(post('abc'), { maxBytes: 3 }))).toBe('abc');
    await expect(readBodyBytes(post('abcd'), { maxBytes: 3 })).rejects.toMatchObject({
      kind: 'http',
      status: 413,
      code: 'http/body-too-large',
      message: 'The request body is larger than 3 bytes.',
    });
  });

  it('counts bytes, not characters', async () => {
    // 'é' is two bytes in UTF-8.
    await expect(readBodyBytes(post('éé'), { maxBytes: 3 })).rejects.toMatchObject({ status: 413 });
    expect(await readBodyBytes(post('é'), { maxBytes: 2 })).toEqual(new Uint8Array([0xc3, 0xa9]));
  });

  it('gives an empty array for a request without a body, and for an empty one', async () => {
    expect(await readBodyBytes(new Request('http://x/'))).toEqual(new Uint8Array(0));
    expect(await readBodyBytes(post(''), { maxBytes: 0 })).toEqual(new Uint8Array(0));
    await expect(readBodyBytes(post('x'), { maxBytes: 0 })).rejects.toMatchObject({ status: 413 });
  });

  it('joins a body sent in many chunks in order', async () => {
    const bytes = new TextEncoder().encode('héllo wörld 😀'.repeat(50));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.slice(i, i + 3));
        controller.close();
      },
    });
    expect(await readBodyBytes(streamed(body))).toEqual(bytes);
  });

  it('stops reading an endless body at the limit and cancels the stream', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(readBodyBytes(streamed(endless), { maxBytes: 100_000 })).rejects.toMatchObject({
      code: 'http/body-too-large',
    });
    expect(cancelled).toBe(true);
    // Two chunks pass the limit; the stream may have been asked for one more ahead.
    expect(pulled).toBeLessThanOrEqual(3);
  });

  it('defaults to 1 MiB', async () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1024 * 1024);
    const exact = new Uint8Array(DEFAULT_MAX_BODY_BYTES);
    expect((await readBodyBytes(post(exact))).byteLength).toBe(DEFAULT_MAX_BODY_BYTES);
    await expect(readBodyBytes(post(new Uint8Array(DEFAULT_MAX_BODY_BYTES + 1)))).rejects.toMatchObject({
      status: 413,
    });
    expect((await readBodyBytes(post(new Uint8Array(5_000_000)), { maxBytes: Infinity })).byteLength).toBe(
      5_000_000,
    );
  });

  it('refuses a limit that is not a number of bytes instead of reading without one', async () => {
    for (const maxBytes of [Number.NaN, -1, '10' as unknown as number]) {
      try {
        await readBodyBytes(post('x'), { maxBytes });
        expect.unreachable();
      } catch (e) {
        expect(isStackspecError(e) && [e.kind, e.code]).toEqual(['spec', 'http/bad-option']);
      }
    }
  });

  it('lets an error of the stream itself through', async () => {
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('client went away'));
      },
    });
    await expect(readBodyBytes(streamed(broken))).rejects.toThrow('client went away');
  });
});

describe('declaredContentLength', () => {
  const declaring = (value: string) => new Request('http://x/', { headers: { 'content-length': value } });

  it('reads a whole number of bytes, spaces around it allowed', () => {
    expect(declaredContentLength(declaring('114689'))).toBe(114689);
    expect(declaredContentLength(declaring(' 0 '))).toBe(0);
  });

  it('gives undefined without the header or for anything but digits', () => {
    expect(declaredContentLength(new Request('http://x/'))).toBeUndefined();
    for (const v of ['-1', '1e3', '0x10', '12 34', '', 'abc']) {
      expect(declaredContentLength(declaring(v)), v).toBeUndefined();
    }
  });
});

describe('requestTooLargeMessage', () => {
  it("words oslo.middleware's refusals of a declared and of a read body", () => {
    expect(requestTooLargeMessage(114688, true)).toBe(
      'Request is too large. Larger than max_request_body_size (114688).',
    );
    expect(requestTooLargeMessage(10, false)).toBe('Request is too large. Larger than 10.');
  });
});
