import { RE2JS } from 're2js';

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

export type CompiledPattern = { ok: true; pattern: RE2JS } | { ok: false; problem: string };

export function compileTenantPattern(source: string, options: { caseInsensitive: boolean } = { caseInsensitive: false }): CompiledPattern {
  if (source.length > MAX_PATTERN_CHARS) return { ok: false, problem: `pattern is longer than ${MAX_PATTERN_CHARS} characters` };
  try {
    return { ok: true, pattern: RE2JS.compile(source, options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0) };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, problem: `pattern cannot run on the linear-time engine (RE2 syntax: no backreferences or lookaround): ${why}` };
  }
}

/** Why a pattern is refused, or null when it is acceptable. */
export function regexProblem(source: string): string | null {
  const compiled = compileTenantPattern(source);
  return compiled.ok ? null : compiled.problem;
}
