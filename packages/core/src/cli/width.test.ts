import { describe, expect, it } from 'vitest';
import { displayWidth, truncateToWidth } from './width.js';

describe('truncateToWidth', () => {
  it('cuts to the width with an ellipsis, counting wide characters twice', () => {
    expect(truncateToWidth('abcdef', 4)).toBe('abc…');
    expect(truncateToWidth('名前名前', 5)).toBe('名前…');
    expect(displayWidth(truncateToWidth('名前名前', 4))).toBeLessThanOrEqual(4);
    expect(truncateToWidth('abc', 1)).toBe('…');
  });

  it('leaves text that fits, and text for an unknown width', () => {
    expect(truncateToWidth('abc', 3)).toBe('abc');
    expect(truncateToWidth('abc', undefined)).toBe('abc');
    expect(truncateToWidth('abc', 0)).toBe('abc');
  });

  it('counts emoji as two columns and never splits a surrogate pair', () => {
    expect(displayWidth('😀')).toBe(2);
    expect(truncateToWidth('😀😀😀', 4)).toBe('😀…');
    expect(truncateToWidth('a😀😀', 3)).toBe('a…');
  });
});
