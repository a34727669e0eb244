// The console sessions of the guides, replayed (see replay.ts for how a page is read).
import { describe, expect, it } from 'vitest';
import { outputMatches, replayPage } from './replay.js';

describe('outputMatches', () => {
  it('takes … for any text and a lone … for any lines', () => {
    expect(outputMatches(['a…c', '…', 'z'], ['abc', 'x', 'y', 'z'])).toBe(true);
    expect(outputMatches(['a', '…'], ['a'])).toBe(true);
    expect(outputMatches(['a…c'], ['abd'])).toBe(false);
    expect(outputMatches(['a', 'b'], ['a', 'b', 'c'])).toBe(false);
    expect(outputMatches(['(x) [y]'], ['(x) [y]'])).toBe(true);
  });
});

replayPage('docs/guides/stackspec-cli.md');
replayPage('examples/cloud/README.md');
