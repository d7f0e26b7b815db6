/**
 * The known name closest to a mistyped one (`search_fqa` → `search_faq`), for "did you mean …?"
 * in a refusal. Levenshtein distance over code units, bounded: a name further than a third of its
 * length (at least 2 edits allowed) is no suggestion at all.
 */
export function nearestName(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const limit = Math.max(2, Math.floor(typed.length / 3));
  for (const name of known) {
    if (name === typed) continue;
    const d = editDistance(typed.toLowerCase(), name.toLowerCase(), limit);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Edit distance (insert, delete, substitute, and swap of neighbours), or limit + 1 once past it. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  // Bounded inputs only (names of at most a few dozen characters): O(|a|·|b|).
  if (a.length > 200 || b.length > 200) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/** " Did you mean "x"?" or, with no close name, the list of known ones (when short). */
export function suggestion(typed: string, known: readonly string[]): string {
  const near = nearestName(typed, known);
  if (near) return `; did you mean "${near}"?`;
  return known.length && known.length <= 12 ? `; known: ${known.join(', ')}` : '';
}
