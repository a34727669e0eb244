import { describe, expect, it } from 'vitest';
import type { ChangeEntry } from '../model/changes.js';
import { createProviderStore } from '../model/store.js';
import { ChangeFeed } from './feed.js';

const trait = (position: number, name: string): ChangeEntry => ({
  position,
  changes: [{ type: 'trait', name, createdAt: '2026-01-01T00:00:00.000Z' }],
});

describe('ChangeFeed', () => {
  it('applies entries once, in log order, whoever offers them', () => {
    const feed = new ChangeFeed(createProviderStore());
    expect(feed.offer([trait(2, 'CUSTOM_B'), trait(1, 'CUSTOM_A')])).toBe('applied');
    expect(feed.position).toBe(2);
    expect(feed.offer([trait(1, 'CUSTOM_A'), trait(2, 'CUSTOM_B'), trait(3, 'CUSTOM_C')])).toBe('applied');
    expect(feed.position).toBe(3);
    expect(feed.store.hasTrait('CUSTOM_C')).toBe(true);
  });

  it('stops at a gap and applies nothing beyond it', () => {
    const feed = new ChangeFeed(createProviderStore());
    expect(feed.offer([trait(1, 'CUSTOM_A'), trait(3, 'CUSTOM_C')])).toBe('gap');
    expect(feed.position).toBe(1);
    expect(feed.store.hasTrait('CUSTOM_C')).toBe(false);
  });

  it('runs a write’s callback right after its own entry, before any later one', () => {
    const feed = new ChangeFeed(createProviderStore());
    const seen: string[] = [];
    feed.expect(2, () =>
      seen.push(`2 sees C: ${feed.store.hasTrait('CUSTOM_C')}, B: ${feed.store.hasTrait('CUSTOM_B')}`),
    );
    feed.expect(9, () => seen.push('never'));
    feed.forget(9);
    feed.offer([trait(1, 'CUSTOM_A'), trait(2, 'CUSTOM_B'), trait(3, 'CUSTOM_C')]);
    expect(seen).toEqual(['2 sees C: false, B: true']);
  });

  it('leaves a reload entry to the caller, and a replacement releases every write up to it', () => {
    const feed = new ChangeFeed(createProviderStore());
    const seen: number[] = [];
    feed.expect(2, () => seen.push(2));
    feed.expect(5, () => seen.push(5));
    expect(feed.offer([trait(1, 'CUSTOM_A'), { position: 2, changes: [{ type: 'reload' }] }])).toBe('reload');
    expect(feed.position).toBe(1);
    feed.replace(4, (store) => store.applyChanges(trait(4, 'CUSTOM_D').changes));
    expect(seen).toEqual([2]);
    expect(feed.position).toBe(4);
    expect(feed.store.hasTrait('CUSTOM_A')).toBe(false);
    expect(feed.store.hasTrait('CUSTOM_D')).toBe(true);
  });
});
