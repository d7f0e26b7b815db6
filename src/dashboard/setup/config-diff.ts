import { diffArrays } from 'diff';

export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** Where a change too large to show line by line lies: lines `fromLine`… of the current config (1-based). */
export interface DiffSummary {
  fromLine: number;
  removed: number;
  added: number;
}

/**
 * The most line edits (a removed or an added line each) the diff looks for. Myers' diff costs
 * about (lines × edits), so two large configs with little in common took tens of seconds of CPU
 * on one request; past this bound the review shows a summary of the changed region instead.
 * A thousand changed lines is also more than anyone reviews line by line. (jsdiff's `timeout`
 * would not help: on Workers the clock does not move during synchronous work.)
 */
export const MAX_DIFF_EDITS = 1000;

/**
 * What a save would change, line by line over the pretty-printed configs (jsdiff). Unchanged
 * runs longer than a few lines are folded so the changes stand out. A change larger than
 * `MAX_DIFF_EDITS` comes back as `summary` (the region that differs) with no lines.
 */
export function configDiff(
  before: unknown,
  after: unknown,
  context = 2,
): { lines: DiffLine[]; changed: boolean; summary?: DiffSummary } {
  const old = JSON.stringify(before, null, 2).split('\n');
  const next = JSON.stringify(after, null, 2).split('\n');
  // The common first and last lines cost one pass; only the region between them is diffed.
  let head = 0;
  while (head < old.length && head < next.length && old[head] === next[head]) head++;
  let tail = 0;
  while (tail < old.length - head && tail < next.length - head && old.at(-1 - tail) === next.at(-1 - tail)) tail++;
  const oldMiddle = old.slice(head, old.length - tail);
  const nextMiddle = next.slice(head, next.length - tail);
  const changes = diffArrays(oldMiddle, nextMiddle, { maxEditLength: MAX_DIFF_EDITS });
  if (!changes)
    return {
      lines: [],
      changed: true,
      summary: { fromLine: head + 1, removed: oldMiddle.length, added: nextMiddle.length },
    };
  const all: DiffLine[] = old.slice(0, head).map((text) => ({ kind: 'same', text }));
  for (const change of changes) {
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    for (const text of change.value) all.push({ kind, text });
  }
  for (const text of old.slice(old.length - tail)) all.push({ kind: 'same', text });
  const changed = all.some((l) => l.kind !== 'same');
  const near = (i: number) => all.slice(Math.max(0, i - context), i + context + 1).some((l) => l.kind !== 'same');
  const lines: DiffLine[] = [];
  let folded = 0;
  all.forEach((line, i) => {
    if (line.kind === 'same' && !near(i)) {
      folded++;
      return;
    }
    if (folded) lines.push({ kind: 'same', text: `… ${folded} unchanged lines` });
    folded = 0;
    lines.push(line);
  });
  if (folded) lines.push({ kind: 'same', text: `… ${folded} unchanged lines` });
  return { lines, changed };
}
