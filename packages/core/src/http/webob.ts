// Errors raised by WSGI middleware in front of an OpenStack service (oslo's
// body size limit before Nova, the noauth2 check before Placement) never
// reach the service's own error formatting: webob renders them itself, as
// HTML, JSON or plain text depending on the request's Accept header. The
// functions here reproduce that page and webob's choice of format.
import { pyJsonDumps } from '../python.js';
import { HTTP_STATUS_TEXT } from './error-bodies.js';

const OWS = '[ \\t]*';
const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QVALUE = '(?:0(?:\\.[0-9]{0,3})?)|(?:1(?:\\.0{0,3})?)';
const QUOTED = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
const PARAMETER = `${TOKEN}=(?:(?:${TOKEN})|(?:${QUOTED}))`;
const MEDIA_RANGE = `(${TOKEN}/${TOKEN})((?:${OWS};${OWS}(?![qQ]=)${PARAMETER})*)`;
const WEIGHT = `${OWS};${OWS}[qQ]=(${QVALUE})`;
const EXTENSION = `${OWS};${OWS}${TOKEN}(?:=(?:(?:${TOKEN})|(?:${QUOTED})))?`;
const ELEMENT = `${MEDIA_RANGE}(?:${WEIGHT}((?:${EXTENSION})*))?`;
// RFC 7230's `#element` list, as webob checks it before parsing anything.
const VALID_ACCEPT = new RegExp(`^(?:|(?:,|(?:${ELEMENT}))(?:${OWS},(?:${OWS}${ELEMENT})?)*)$`);
const RANGES = new RegExp(ELEMENT, 'g');
const PARAMS = new RegExp(`${OWS};${OWS}(${TOKEN})=(${TOKEN}|${QUOTED})`, 'g');

/** The three renderings of a webob error page. */
export type WebobErrorFormat = 'html' | 'json' | 'plain';
const OFFERS: readonly [string, string, WebobErrorFormat][] = [
  ['text', 'html', 'html'],
  ['application', 'json', 'json'],
];

/**
 * The format webob picks for an error page (`accept`: the request's Accept
 * header, or `null` without one): the better of `text/html` and
 * `application/json` by the Accept header's quality values (ties go to
 * HTML), plain text when neither is acceptable or the header is absent, and
 * HTML for a header that does not follow RFC 7231's grammar.
 */
export function webobErrorFormat(accept: string | null): WebobErrorFormat {
  const value = accept ?? '';
  if (!VALID_ACCEPT.test(value)) return 'html';
  const best = new Map<WebobErrorFormat, { q: number; specificity: number }>();
  for (const m of value.matchAll(RANGES)) {
    const [type, subtype] = (m[1] as string).toLowerCase().split('/') as [string, string];
    const hasParams = [...(m[2] ?? '').matchAll(PARAMS)].length > 0;
    const q = m[3] === undefined ? 1 : Number(m[3]);
    for (const [offerType, offerSubtype, format] of OFFERS) {
      let specificity: number;
      if (type === offerType && subtype === offerSubtype) {
        // A range with media type parameters never equals a bare offer.
        if (hasParams) continue;
        specificity = 3;
      } else if (subtype === '*' && type === offerType) specificity = 2;
      else if (type === '*' && subtype === '*') specificity = 1;
      else continue;
      const seen = best.get(format);
      if (!seen || specificity > seen.specificity) best.set(format, { q, specificity });
    }
  }
  let chosen: WebobErrorFormat = 'plain';
  let chosenQ = 0;
  for (const [, , format] of OFFERS) {
    const q = best.get(format)?.q ?? 0;
    if (q > chosenQ) {
      chosen = format;
      chosenQ = q;
    }
  }
  return chosen;
}

function htmlEscape(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' })[c] as string,
  );
}

/**
 * webob's error page for `status` with `explanation`, in the format the
 * Accept header asks for (see {@link webobErrorFormat}), byte for byte.
 *
 * @example
 * webobErrorResponse(401, HTTP_STATUS_TEXT[401].explanation, request.headers.get('accept'));
 */
export function webobErrorResponse(status: number, explanation: string, accept: string | null): Response {
  const title = HTTP_STATUS_TEXT[status]?.title ?? `HTTP ${status}`;
  const line = `${status} ${title}`;
  const format = webobErrorFormat(accept);
  // webob's body template: the explanation, two line breaks, then an empty
  // detail and comment on lines of their own.
  const body = (escaped: string) => `${escaped}<br /><br />\n\n\n`;
  let text: string;
  let type: string;
  if (format === 'html') {
    text = `<html>\n <head>\n  <title>${line}</title>\n </head>\n <body>\n  <h1>${line}</h1>\n  ${body(htmlEscape(explanation))}\n </body>\n</html>`;
    type = 'text/html; charset=UTF-8';
  } else if (format === 'json') {
    text = pyJsonDumps({ message: body(explanation), code: line, title });
    type = 'application/json';
  } else {
    // Plain text: newlines become spaces, each <br /> a newline, other tags nothing.
    const stripped = body(explanation)
      .replace(/\n/g, ' ')
      .replace(/\r/g, '')
      .replace(/<br.*?>/gis, '\n')
      .replace(/<.*?>/gs, '');
    text = `${line}\n\n${stripped}`;
    type = 'text/plain; charset=UTF-8';
  }
  return new Response(text, { status, headers: { 'Content-Type': type } });
}
