import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.js';

function tty(columns?: number) {
  const writes: string[] = [];
  return { writes, stream: { write: (s: string) => writes.push(s), isTTY: true, columns } };
}

describe('createProgress on a terminal', () => {
  it('cuts each line to the terminal width, keeping the last column free', () => {
    const { writes, stream } = tty(12);
    const p = createProgress(stream, { env: {}, delayMs: 0 });
    p.update('checking 120/4000 files…');
    expect(writes).toEqual(['\r\u001b[Kchecking 1…']);
    // 10 columns of text plus the ellipsis: 11, one less than the 12 the terminal has.
    expect([...(writes[0]?.slice(4) ?? '')].length).toBe(11);
  });

  it('counts wide characters as two columns and never splits them', () => {
    const { writes, stream } = tty(8);
    createProgress(stream, { env: {}, delayMs: 0 }).update('検証中の項目');
    // 7 usable columns: three wide characters (6) and the ellipsis.
    expect(writes).toEqual(['\r\u001b[K検証中…']);
  });

  it('keeps a line whole when it fits or the width is unknown, on one line', () => {
    const fits = tty(80);
    createProgress(fits.stream, { env: {}, delayMs: 0 }).update('loading\nproviders');
    expect(fits.writes).toEqual(['\r\u001b[Kloading providers']);
    const unknown = tty(undefined);
    createProgress(unknown.stream, { env: {}, delayMs: 0 }).update('x'.repeat(300));
    expect(unknown.writes[0]?.length).toBe(304);
  });

  it('shows nothing for work that ends within the delay', () => {
    const { writes, stream } = tty(80);
    let t = 0;
    const p = createProgress(stream, { env: {}, now: () => t });
    t = 999;
    p.update('almost done');
    p.done();
    expect(writes).toEqual([]);
    t = 1000;
    p.update('still going');
    p.done();
    expect(writes).toEqual(['\r\u001b[Kstill going', '\r\u001b[K']);
  });

  it('is silent when the stream is not a terminal, and under CI', () => {
    const writes: string[] = [];
    const pipe = createProgress({ write: (s) => writes.push(s), isTTY: false, columns: 80 }, { delayMs: 0 });
    pipe.update('x');
    pipe.done();
    const ci = createProgress(
      { write: (s) => writes.push(s), isTTY: true, columns: 80 },
      { env: { CI: 'true' }, delayMs: 0 },
    );
    ci.update('x');
    ci.done();
    expect(writes).toEqual([]);
  });
});
