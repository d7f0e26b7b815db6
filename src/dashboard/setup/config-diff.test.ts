import { describe, expect, it } from 'vitest';
import { configDiff } from './config-diff.js';

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
