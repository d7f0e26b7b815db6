import { describe, expect, it } from 'vitest';
import { MAX_DIFF_EDITS, configDiff } from './config-diff.js';

describe('configDiff', () => {
  it('marks added and removed lines and folds long unchanged runs', () => {
    const before = { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8 };
    const after = { ...before, d: 40 };
    const { lines, changed } = configDiff(before, after, 1);
    expect(changed).toBe(true);
    expect(lines.filter((l) => l.kind === 'removed').map((l) => l.text.trim())).toEqual(['"d": 4,']);
    expect(lines.filter((l) => l.kind === 'added').map((l) => l.text.trim())).toEqual(['"d": 40,']);
    expect(lines[0]).toEqual({ kind: 'same', text: '… 3 unchanged lines' });
    expect(lines.at(-1)).toEqual({ kind: 'same', text: '… 4 unchanged lines' });
  });

  it('says when nothing changed', () => {
    expect(configDiff({ a: [1] }, { a: [1] }).changed).toBe(false);
  });
});

describe('configDiff on a pathological pair', () => {
  // Two ~190 KB configs with no line in common: an unbounded Myers diff does ~(N+M)² work here
  // (seconds of CPU on one request). The bounded diff gives up and summarises the changed region.
  const notes = (word: string, n: number) => Array.from({ length: n }, (_, i) => `${word} ${i} ${'z'.repeat(20)}`);
  const shared = { displayName: 'Studio', persona: { tone: 'warm' } };

  it('gives up past the edit bound and says how many lines change, where', () => {
    const before = { ...shared, notes: notes('before', 6000), tail: 'same' };
    const after = { ...shared, notes: notes('after', 6000), tail: 'same' };
    expect(JSON.stringify(after).length).toBeGreaterThan(190_000);
    const diff = configDiff(before, after);
    expect(diff.changed).toBe(true);
    expect(diff.lines).toEqual([]);
    // The region between the common first and last lines: 6000 old note lines replaced by 6000 new ones.
    const prettyBefore = JSON.stringify(before, null, 2).split('\n');
    const firstNote = prettyBefore.findIndex((l) => l.includes('"before 0 '));
    expect(diff.summary).toEqual({ fromLine: firstNote + 1, removed: 6000, added: 6000 });
  });

  it('still shows a small change inside a large config line by line', () => {
    const before = { ...shared, notes: notes('n', 6000) };
    const after = { ...shared, notes: notes('n', 6000).map((l, i) => (i === 3000 ? 'changed' : l)) };
    const diff = configDiff(before, after);
    expect(diff.summary).toBeUndefined();
    expect(diff.lines.filter((l) => l.kind === 'removed').map((l) => l.text.trim())).toEqual([
      `"n 3000 ${'z'.repeat(20)}",`,
    ]);
    expect(diff.lines.filter((l) => l.kind === 'added').map((l) => l.text.trim())).toEqual(['"changed",']);
  });

  it('shows a change just under the bound line by line, and one just over it as a summary', () => {
    const base = notes('k', 2000);
    const edited = (count: number) => base.map((l, i) => (i % 2 === 0 && i < count * 2 ? `${l} edited` : l));
    const under = configDiff({ notes: base }, { notes: edited(MAX_DIFF_EDITS / 2 - 1) });
    expect(under.summary).toBeUndefined();
    expect(under.lines.filter((l) => l.kind === 'added')).toHaveLength(MAX_DIFF_EDITS / 2 - 1);
    const over = configDiff({ notes: base }, { notes: edited(MAX_DIFF_EDITS / 2 + 1) });
    expect(over.lines).toEqual([]);
    expect(over.summary?.removed).toBeGreaterThan(MAX_DIFF_EDITS / 2);
  });
});
