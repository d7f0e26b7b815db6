/**
 * Cursors over append-only sequences (DLQ entries, log events): the cursor is the `seq` of the next
 * item to return, so it stays valid while items are added, or removed by a bulk action.
 */
export function pageBySeq<T extends { seq: number }>(
  oldestFirst: readonly T[],
  opts: { order: 'earliestFirst' | 'latestFirst'; cursor?: number; count: number },
): { items: T[]; cursor?: string } {
  const latest = opts.order === 'latestFirst';
  const ordered = latest ? [...oldestFirst].reverse() : oldestFirst;
  const from = opts.cursor;
  const remaining = from === undefined ? ordered : ordered.filter((x) => (latest ? x.seq <= from : x.seq >= from));
  const items = remaining.slice(0, opts.count);
  const next = remaining[opts.count];
  return { items, ...(next ? { cursor: String(next.seq) } : {}) };
}
