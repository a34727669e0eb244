/** Where strict JSON text first goes wrong, and what was expected there. */
export interface JsonSyntaxProblem {
  offset: number;
  message: string;
}

const WS = new Set([' ', '\t', '\n', '\r']);

/**
 * Scans text with the JSON grammar (RFC 8259) and reports the first error.
 * Used only after `JSON.parse` failed, because V8's messages do not always
 * carry a position. Iterative, so deep nesting cannot overflow the stack.
 */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  let i = 0;
  const stack: ('{' | '[')[] = [];
  const n = text.length;
  const skipWs = () => {
    while (i < n && WS.has(text[i] as string)) i += 1;
  };
  const fail = (message: string): JsonSyntaxProblem => ({ offset: Math.min(i, n), message });
  const describe = () => (i >= n ? 'the end of the text' : `'${text[i]}'`);

  const readString = (): JsonSyntaxProblem | undefined => {
    i += 1; // opening quote
    while (i < n) {
      const c = text[i] as string;
      if (c === '"') {
        i += 1;
        return undefined;
      }
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            return fail('Expected four hex digits after \\u in a string.');
          }
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) {
          return fail('Invalid escape sequence in a string.');
        }
        i += 2;
        continue;
      }
      if (c.charCodeAt(0) < 0x20) return fail('Control characters must be escaped inside a string.');
      i += 1;
    }
    return fail('Unterminated string.');
  };

  const readValue = (): JsonSyntaxProblem | 'open' | undefined => {
    skipWs();
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push(c);
      i += 1;
      return 'open';
    }
    if (c === '"') return readString();
    const literal = /^(?:true|false|null)/.exec(text.slice(i, i + 5));
    if (literal) {
      i += literal[0].length;
      return undefined;
    }
    const num = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (num && num[0] !== '-') {
      i += num[0].length;
      return undefined;
    }
    return fail(`Expected a JSON value but found ${describe()}.`);
  };

  // State machine: after a value, either close/continue the container or finish.
  let problem = readValue();
  if (problem && problem !== 'open') return problem;
  let expectValueOrClose = problem === 'open';
  for (;;) {
    skipWs();
    const top = stack[stack.length - 1];
    if (!top) {
      if (i < n) return fail(`Unexpected ${describe()} after the end of the JSON value.`);
      return undefined;
    }
    const close = top === '{' ? '}' : ']';
    if (expectValueOrClose && text[i] === close) {
      stack.pop();
      i += 1;
      expectValueOrClose = false;
      continue;
    }
    if (!expectValueOrClose) {
      if (text[i] === close) {
        stack.pop();
        i += 1;
        continue;
      }
      if (text[i] !== ',') return fail(`Expected ',' or '${close}' but found ${describe()}.`);
      i += 1;
      skipWs();
    }
    if (top === '{') {
      if (text[i] !== '"') return fail(`Expected a property name in double quotes but found ${describe()}.`);
      const bad = readString();
      if (bad) return bad;
      skipWs();
      if (text[i] !== ':') return fail(`Expected ':' after a property name but found ${describe()}.`);
      i += 1;
    }
    problem = readValue();
    if (problem && problem !== 'open') return problem;
    expectValueOrClose = problem === 'open';
  }
}

/**
 * The offset of the first `[` or `{` that opens a level deeper than
 * `maxDepth` in JSON text, or `undefined`. One pass, no tree: brackets inside
 * strings do not count, and text that is not JSON is scanned as far as it
 * goes (its syntax is checked elsewhere).
 */
export function findJsonTooDeep(text: string, maxDepth: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string: up to the next quote that no backslash escapes.
      for (i += 1; i < text.length; i += 1) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i += 1;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return i;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth -= 1;
    }
  }
  return undefined;
}
