import { describe, expect, it } from 'vitest';
import { webobErrorFormat, webobErrorResponse } from './webob.js';

describe('webobErrorFormat', () => {
  it.each([
    [null, 'plain'],
    ['', 'plain'],
    ['text/plain', 'plain'],
    ['application/json', 'json'],
    ['APPLICATION/JSON', 'json'],
    ['application/*', 'json'],
    ['*/*', 'html'],
    ['text/*', 'html'],
    ['text/html', 'html'],
    ['application/json;q=0.5, text/html;q=0.4', 'json'],
    ['text/html;q=0, application/json', 'json'],
    ['application/json;q=0', 'plain'],
    ['application/json;charset=utf-8', 'plain'],
    ['application/json, */*;q=0.1', 'json'],
    [',, application/json ,', 'json'],
    ['not a media type', 'html'],
    ['application/json;q=2', 'html'],
  ] as const)('Accept %j gives %s', (accept, format) => {
    expect(webobErrorFormat(accept)).toBe(format);
  });
});

describe('webobErrorResponse', () => {
  it('escapes the explanation in HTML only', async () => {
    const html = await webobErrorResponse(413, 'a <b> & "c"', 'text/html').text();
    expect(html).toContain('  a &lt;b&gt; &amp; &quot;c&quot;<br /><br />\n\n\n\n </body>');
    const plain = await webobErrorResponse(413, 'a <b>', null).text();
    expect(plain).toBe('413 Request Entity Too Large\n\na \n\n   ');
  });
});
