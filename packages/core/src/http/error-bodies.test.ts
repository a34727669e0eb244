import { describe, expect, it } from 'vitest';
import { ConflictError, HttpError, NotFoundError, ValidationError } from '../errors.js';
import { errorResponse, ironicErrorBody, novaErrorBody, placementErrorBody } from './error-bodies.js';

describe('novaErrorBody', () => {
  it('names the fault by status the way Nova does', () => {
    expect(novaErrorBody(400, 'Validation failed; x.')).toEqual({
      badRequest: { code: 400, message: 'Validation failed; x.' },
    });
    expect(Object.keys(novaErrorBody(404, 'm'))).toEqual(['itemNotFound']);
    expect(Object.keys(novaErrorBody(409, 'm'))).toEqual(['conflictingRequest']);
    expect(Object.keys(novaErrorBody(406, 'm'))).toEqual(['computeFault']);
  });
});

describe('placementErrorBody', () => {
  it('renders webob detail text and the code from 1.23', () => {
    const body = placementErrorBody(400, 'Invalid query string parameters: x', {
      withCode: true,
      code: 'placement.query.bad_value',
      requestId: 'req-1',
    });
    expect(body.errors[0]).toEqual({
      status: 400,
      title: 'Bad Request',
      detail:
        'The server could not comply with the request since it is either malformed or otherwise incorrect.\n\n Invalid query string parameters: x  ',
      code: 'placement.query.bad_value',
      request_id: 'req-1',
    });
  });

  it('omits code before 1.23 and defaults it to undefined_code after', () => {
    expect(placementErrorBody(404, 'm').errors[0]).not.toHaveProperty('code');
    expect(placementErrorBody(404, 'm', { withCode: true }).errors[0]?.code).toBe('placement.undefined_code');
    expect(placementErrorBody(406, 'm', { extra: { max_version: '1.39' } }).errors[0]?.max_version).toBe(
      '1.39',
    );
  });
});

describe('ironicErrorBody', () => {
  it('wraps a fault as JSON text', () => {
    const body = ironicErrorBody(409, 'A deploy template with name CUSTOM_X already exists.');
    expect(JSON.parse(body.error_message)).toEqual({
      faultstring: 'A deploy template with name CUSTOM_X already exists.',
      faultcode: 'Client',
      debuginfo: null,
    });
    expect(JSON.parse(ironicErrorBody(500, 'x').error_message).faultcode).toBe('Server');
  });

  it('wraps webob errors with code, title and description', () => {
    expect(
      JSON.parse(
        ironicErrorBody(405, 'The API version does not allow deploy templates', 'webob').error_message,
      ),
    ).toEqual({
      code: 405,
      title: 'Method Not Allowed',
      description: 'The API version does not allow deploy templates',
    });
  });
});

describe('errorResponse', () => {
  it('keeps the status and message of core errors', async () => {
    const r = errorResponse(new NotFoundError('Flavor 7 could not be found.'), { style: 'nova' });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ itemNotFound: { code: 404, message: 'Flavor 7 could not be found.' } });
  });

  it('renders each style', async () => {
    const p = (await errorResponse(new ValidationError('bad'), {
      style: 'placement',
      placement: { withCode: true },
    }).json()) as { errors: { status: number }[] };
    expect(p.errors[0]?.status).toBe(400);
    const i = await errorResponse(new ConflictError('dup'), { style: 'ironic', headers: { 'x-a': 'b' } });
    expect(i.headers.get('x-a')).toBe('b');
    expect(JSON.parse(((await i.json()) as { error_message: string }).error_message).faultstring).toBe('dup');
    const plain = (await errorResponse(new HttpError(403, 'no'), { style: 'plain' }).json()) as {
      error: unknown;
    };
    expect(plain.error).toMatchObject({ status: 403, code: 'http/error', message: 'no' });
  });

  it('hides foreign error messages behind a 500', async () => {
    const r = errorResponse(new Error('password=hunter2 in SQL'), { style: 'plain' });
    expect(r.status).toBe(500);
    expect(await r.text()).not.toContain('hunter2');
  });
});
