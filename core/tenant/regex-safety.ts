/**
 * Tenant-supplied regular expressions (forbidden PII patterns) run inside the Worker on every
 * reply. A catastrophic-backtracking pattern would block the isolate synchronously, and the
 * pipeline's timeout cannot fire while the event loop is blocked, so unsafe patterns are refused
 * when the config is saved (and again on every read, since the config is validated on load).
 *
 * The check is a conservative heuristic, not a proof: it refuses the constructs that cause
 * exponential backtracking in practice (a quantified group that itself contains a quantifier or
 * an alternation, and backreferences), lookbehind, and anything that does not compile with the
 * `u` flag. Patterns are also capped at 200 characters, and the text they run on is bounded
 * (reply-schema vetoes replies over 2000 characters; content checks at most 4000).
 */
export const MAX_PATTERN_CHARS = 200;

/** Why a pattern is refused, or null when it is acceptable. */
export function regexProblem(source: string): string | null {
  if (source.length > MAX_PATTERN_CHARS) return `pattern is longer than ${MAX_PATTERN_CHARS} characters`;
  try {
    new RegExp(source, 'u');
  } catch (err) {
    return `pattern does not compile: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (/\\[1-9]|\\k</.test(source)) return 'backreferences are not allowed (they can backtrack without bound)';
  if (/\(\?<[=!]/.test(source)) return 'lookbehind is not allowed';
  if (hasNestedQuantifier(source)) return 'a repeated group that contains a repetition or alternation is not allowed (catastrophic backtracking)';
  return null;
}

/**
 * True when some group followed by a quantifier (`*`, `+`, `{n,}`, `{n,m}`) contains a quantifier
 * or a `|` inside it: `(a+)+`, `(a|aa)*`, `(\w*\s?)+`. Character classes and escapes are skipped.
 */
function hasNestedQuantifier(source: string): boolean {
  // Stack of open groups: whether each already contains a quantifier or alternation.
  const stack: boolean[] = [];
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '[') {
      // Skip the class; `]` right after `[` or `[^` is literal.
      i++;
      if (source[i] === '^') i++;
      if (source[i] === ']') i++;
      while (i < source.length && source[i] !== ']') {
        if (source[i] === '\\') i++;
        i++;
      }
      continue;
    }
    if (ch === '(') {
      stack.push(false);
      continue;
    }
    if (ch === ')') {
      const risky = stack.pop() ?? false;
      const next = source[i + 1];
      const quantified = next === '*' || next === '+' || (next === '{' && /^\{\d*,\d*\}/.test(source.slice(i + 1)));
      if (quantified && risky) return true;
      // The closed group counts as a repetition inside its parent when it is itself quantified.
      if (stack.length && (risky || quantified)) stack[stack.length - 1] = true;
      continue;
    }
    if (ch === '*' || ch === '+' || ch === '|' || (ch === '{' && /^\{\d*,\d*\}/.test(source.slice(i)))) {
      if (stack.length) stack[stack.length - 1] = true;
    }
  }
  return false;
}
