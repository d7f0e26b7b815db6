import { RE2JS } from 're2js';
import { PATTERN_PROBE_TEXTS } from './pattern-probe-texts.js';
import { compilePatternSet, freshBudget, TURN_MATCHER_WORK } from './pattern-set.js';

/**
 * Tenant-supplied regular expressions (forbidden PII patterns, and the deny-list built from
 * tenant phrases) run inside the Worker on every reply. V8's backtracking engine can take
 * exponential or high-polynomial time on some patterns (`\d*\d*\d*x` on 800 digits: over a
 * minute), synchronously, where no timeout can fire. So every tenant pattern runs on RE2JS, a
 * linear-time engine (no backtracking: time grows with the text, whatever the pattern). What RE2
 * cannot run (backreferences, lookaround) is refused when the config is saved, naming why.
 * Patterns are capped at 200 characters, and the text they run on is bounded by the content
 * guardrail (4,000 characters).
 */
export const MAX_PATTERN_CHARS = 200;

/**
 * RE2 is linear in the text, not in the program: a search costs up to (instructions × characters),
 * and 200 characters of `.{0,1000}` compile to thousands of instructions (50 such patterns took
 * 17 s of CPU on one 2,000-character reply). So the compiled program is bounded per pattern and
 * over all of a tenant's PII patterns, at save. Real PII patterns are far below: an e-mail 10, an
 * SSN 15, a card number 30, an IBAN 54 instructions.
 */
export const MAX_PATTERN_PROGRAM = 100;
export const MAX_TOTAL_PII_PROGRAM = 400;

export type CompiledPattern = { ok: true; pattern: RE2JS } | { ok: false; problem: string };

/** `maxProgram`: the save's bound by default; the guardrail compiles a stored pattern unbounded and budgets its work per turn. */
export function compileTenantPattern(
  source: string,
  options: { caseInsensitive: boolean; maxProgram?: number } = { caseInsensitive: false },
): CompiledPattern {
  if (source.length > MAX_PATTERN_CHARS)
    return { ok: false, problem: `pattern is longer than ${MAX_PATTERN_CHARS} characters` };
  try {
    const pattern = RE2JS.compile(source, options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
    const size = pattern.programSize();
    if (size > (options.maxProgram ?? MAX_PATTERN_PROGRAM))
      return {
        ok: false,
        problem: `pattern compiles to ${size} instructions, more than ${MAX_PATTERN_PROGRAM} (every reply is searched with it: use smaller counted repetitions such as {0,20} instead of {0,1000})`,
      };
    return { ok: true, pattern };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      problem: `pattern cannot run on the linear-time engine (RE2 syntax: no backreferences or lookaround): ${why}`,
    };
  }
}

/** Why a pattern is refused, or null when it is acceptable. */
export function regexProblem(
  source: string,
  options: { caseInsensitive: boolean } = { caseInsensitive: false },
): string | null {
  const compiled = compileTenantPattern(source, options);
  return compiled.ok ? null : compiled.problem;
}

/**
 * A tenant's PII patterns together: each within its bound (checked by the schema), the sum within
 * the total, and all of them able to read an ordinary reply within one turn's matcher budget
 * (pattern-set.ts: past it a turn is vetoed, so a config that cannot read ordinary replies would
 * veto real turns; refused here, naming the reply it could not read).
 */
export function piiProgramProblems(
  patterns: readonly { name: string; pattern: string; caseInsensitive: boolean }[],
): string[] {
  const sizes = patterns.map((p) => {
    const c = compileTenantPattern(p.pattern, { caseInsensitive: p.caseInsensitive });
    return { name: p.name, size: c.ok ? c.pattern.programSize() : 0, ok: c.ok };
  });
  const total = sizes.reduce((sum, s) => sum + s.size, 0);
  if (total > MAX_TOTAL_PII_PROGRAM) {
    const largest = [...sizes]
      .sort((a, b) => b.size - a.size)
      .slice(0, 3)
      .map((s) => `"${s.name}" (${s.size})`);
    return [
      `guardrails.content.piiPatterns: the patterns compile to ${total} instructions together, more than ${MAX_TOTAL_PII_PROGRAM}; the largest are ${largest.join(', ')}`,
    ];
  }
  const valid = patterns.filter((_, i) => sizes[i]!.ok);
  if (!valid.length) return [];
  const setPatterns = valid.map((p) => ({ source: p.pattern, caseInsensitive: p.caseInsensitive }));
  for (const probe of PATTERN_PROBE_TEXTS) {
    // A fresh set each time: a cold isolate reads its first reply with an empty cache.
    if (compilePatternSet(setPatterns).search(probe.text, freshBudget()).finished) continue;
    return [
      `guardrails.content.piiPatterns: together the patterns cannot read ${probe.name} within a turn's matcher budget (${TURN_MATCHER_WORK.toLocaleString('en')} steps of matcher work), so real replies would be vetoed; use fewer or simpler patterns (smaller counted repetitions, fewer overlapping alternatives)`,
    ];
  }
  return [];
}
