import { diffLines } from 'diff';

export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/**
 * What a save would change, line by line over the pretty-printed configs (jsdiff). Unchanged
 * runs longer than a few lines are folded so the changes stand out.
 */
export function configDiff(before: unknown, after: unknown, context = 2): { lines: DiffLine[]; changed: boolean } {
  const changes = diffLines(JSON.stringify(before, null, 2) + '\n', JSON.stringify(after, null, 2) + '\n');
  const all: DiffLine[] = [];
  for (const change of changes) {
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    for (const text of change.value.replace(/\n$/, '').split('\n')) all.push({ kind, text });
  }
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
