import { describe, expect, it } from 'vitest';
import { createDiagnostic } from '../diagnostic.js';
import { ConflictError, HttpError, NotFoundError, ValidationError } from '../errors.js';
import {
  errorResponse,
  heatErrorBody,
  ironicErrorBody,
  novaErrorBody,
  placementErrorBody,
} from './error-bodies.js';

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

describe('heatErrorBody', () => {
  it('has the shape of a Heat fault, with webob title and explanation', () => {
    expect(heatErrorBody(404, 'NotFound', 'The resource could not be found.')).toEqual({
      code: 404,
      title: 'Not Found',
      explanation: 'The resource could not be found.',
      error: { type: 'NotFound', message: 'The resource could not be found.', traceback: null },
    });
    expect(heatErrorBody(413, 'RequestLimitExceeded', 'm').explanation).toBe(
      'The body of your request was too large for this server.',
    );
  });

  it('carries diagnostics only when there are some, and names unknown statuses plainly', () => {
    const d = createDiagnostic({ code: 'heat/x', message: 'bad', line: 3 });
    expect(heatErrorBody(400, 'ValueError', 'bad', [d]).error.diagnostics).toEqual([d]);
    expect(heatErrorBody(400, 'ValueError', 'bad', [])).not.toHaveProperty('error.diagnostics');
    expect(heatErrorBody(599, 'X', 'y')).toMatchObject({ title: 'HTTP 599', explanation: '' });
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

  it('takes a whole detail for the statuses whose webob page words it from the request', () => {
    const body = placementErrorBody(405, 'The method specified is not allowed for this resource.', {
      detail:
        'The method PATCH is not allowed for this resource. \n\n The method specified is not allowed for this resource.',
    });
    expect(body.errors[0]).toEqual({
      status: 405,
      title: 'Method Not Allowed',
      detail:
        'The method PATCH is not allowed for this resource. \n\n The method specified is not allowed for this resource.',
    });
  });
});

describe('ironicErrorBody', () => {
  it('writes a fault as Ironic does: faultcode first, json.dumps spacing', () => {
    expect(ironicErrorBody(409, 'A deploy template with name CUSTOM_X already exists.')).toEqual({
      error_message:
        '{"faultcode": "Client", "faultstring": "A deploy template with name CUSTOM_X already exists.", "debuginfo": null}',
    });
    expect(ironicErrorBody(500, 'x').error_message).toBe(
      '{"faultcode": "Server", "faultstring": "x", "debuginfo": null}',
    );
  });

  it('escapes non-ASCII text the way json.dumps does', () => {
    expect(ironicErrorBody(400, 'Nom « é » 😀').error_message).toBe(
      '{"faultcode": "Client", "faultstring": "Nom \\u00ab \\u00e9 \\u00bb \\ud83d\\ude00", "debuginfo": null}',
    );
  });

  it('writes webob errors with code, title and description', () => {
    expect(ironicErrorBody(405, 'The API version does not allow deploy templates', 'webob')).toEqual({
      error_message:
        '{"code": 405, "title": "Method Not Allowed", "description": "The API version does not allow deploy templates"}',
    });
    expect(ironicErrorBody(418, '', 'webob').error_message).toBe(
      '{"code": 418, "title": "HTTP 418", "description": ""}',
    );
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
    const i = errorResponse(new ConflictError('dup'), { style: 'ironic', headers: { 'x-a': 'b' } });
    expect(i.status).toBe(409);
    expect(i.headers.get('x-a')).toBe('b');
    expect(i.headers.get('content-type')).toBe('application/json');
    expect(await i.text()).toBe(
      '{"error_message": "{\\"faultcode\\": \\"Client\\", \\"faultstring\\": \\"dup\\", \\"debuginfo\\": null}"}',
    );
    const webob = errorResponse(new HttpError(406, 'no'), { style: 'ironic', ironicStyle: 'webob' });
    expect(JSON.parse(((await webob.json()) as { error_message: string }).error_message)).toEqual({
      code: 406,
      title: 'Not Acceptable',
      description: 'no',
    });
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
