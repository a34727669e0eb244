import { describe, expect, it } from 'vitest';
import { bytesOfResponse, bytesResponse } from './bytes-response.js';

describe('bytesResponse', () => {
  it('is an ordinary response whose body yields the bytes given, with the status and headers given', async () => {
    const bytes = new TextEncoder().encode('{"a":1}');
    const r = bytesResponse(bytes, { status: 201, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toEqual({ a: 1 });
  });

  it('gives an empty body for no bytes', async () => {
    expect(await bytesResponse(new Uint8Array(0)).text()).toBe('');
  });
});

describe('bytesOfResponse', () => {
  it('hands a server the very bytes of an unread bytes response', async () => {
    const bytes = Uint8Array.of(1, 2, 3);
    const r = bytesResponse(bytes);
    expect(bytesOfResponse(r)).toBe(bytes);
    await r.arrayBuffer();
    // Once read, the body is gone: a server must not send it again.
    expect(bytesOfResponse(r)).toBeUndefined();
  });

  it('gives undefined for any other response', () => {
    expect(bytesOfResponse(new Response(Uint8Array.of(1)))).toBeUndefined();
  });
});
