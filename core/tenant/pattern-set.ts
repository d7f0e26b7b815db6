import { RE2Set } from 're2js';

/**
 * A tenant's PII patterns as one bounded matcher. RE2's NFA is linear in the text but not in the
 * program (instructions × characters: 86 ms a turn for the largest config a save accepts), and
 * synchronous work cannot be interrupted. A DFA reads each character once; its cost is in the
 * states it builds, and a pattern such as `a[ab]{80}z` can make it build one per character
 * (re2js's own DFA then resets its cache and finally falls back to the NFA, paying both).
 *
 * So the search runs on re2js's lazy DFA (the one behind `RE2Set`) with two changes: it never
 * resets its cache mid-search, and it never falls back to the NFA. Each search may do at most what
 * is left of the turn's work budget (`TURN_MATCHER_WORK`, counted per transition it has to build);
 * past it the search stops and reports that it could not finish, and the caller fails closed.
 * States built stay cached for later turns in the isolate, up to CACHE_BYTES.
 *
 * Written on re2js's internals (the `dfa` of an `RE2Set`: `step`, `stepOrReset`, `matchSet`,
 * `memBudget`, `clearCache`, a state's `nfaStates`) because re2js exposes no per-search budget and no
 * bail-out; `compilePatternSet` checks their shape and throws if a re2js upgrade changed them, and
 * pattern-set.test.ts pins the behaviour (exhaustion ends the search, no NFA fallback).
 */

/**
 * The DFA-building work one turn's searches may do, in NFA-thread steps: each transition the DFA
 * has not cached yet costs the threads of the state it leaves (re2js steps each one and computes
 * the closure of the result) plus a fixed overhead for hashing and looking up the next state.
 * Cached transitions cost nothing here (one table read a character). Measured 60–120 ns a step on
 * the worst shapes (`npm run bench:pii`), so the budget is ≈ 1–2 ms; an ordinary 4,000-character
 * reply against seven real patterns (e-mail, phone, IBAN ×2, card, SSN, passport) takes 2,000–4,000.
 */
export const TURN_MATCHER_WORK = 16_000;

/** Counted for each uncached transition on top of its threads. */
const TRANSITION_OVERHEAD = 8;

/**
 * What a pattern set's cache may hold across turns (re2js's accounting, bytes), and what must be
 * left before a search. A search's work budget bounds what it allocates: ≤ 8 bytes for each unit
 * charged for threads, ≤ 64 for each unit charged for a table (a table is 8 bytes a class, charged
 * a unit per 8 classes), 150 a state, so at most ≈ 1.5 MB, below the reserve: a search never runs
 * out of cache.
 */
const CACHE_BYTES = 4 * 1024 * 1024;
const CACHE_RESERVE = 2 * 1024 * 1024;

/** What is left of a turn's work budget; searches subtract what they spend. */
export interface MatcherBudget {
  remaining: number;
}

export const freshBudget = (): MatcherBudget => ({ remaining: TURN_MATCHER_WORK });

/** The indices (in the order given) of the patterns that match somewhere, or `unfinished`. */
export type SetSearch = { finished: true; matched: number[] } | { finished: false };

export interface PatternSet {
  search(text: string, budget: MatcherBudget): SetSearch;
}

export interface SetPattern {
  source: string;
  caseInsensitive: boolean;
}

/** The parts of re2js's DFA this relies on (not in its public types). */
interface Re2jsState {
  nfaStates: readonly number[];
  next: unknown[] | null;
}

interface Re2jsDfa {
  memBudget: number;
  numClasses: number;
  clearCache(): void;
  step(state: unknown, cls: number, rune: number, anchor: number): unknown;
  stepOrReset(state: unknown, cls: number, rune: number, anchor: number, pos: number, search: unknown): unknown;
  matchSet(input: unknown, pos: number, anchor: number): number[] | null;
}

/** Exported for its test: what `compilePatternSet` checks before it relies on re2js's DFA. */
export function isRe2jsDfa(dfa: unknown): dfa is Re2jsDfa {
  if (typeof dfa !== 'object' || dfa === null) return false;
  const d = dfa as Record<string, unknown>;
  return (
    typeof d.memBudget === 'number' &&
    typeof d.numClasses === 'number' &&
    ['clearCache', 'step', 'stepOrReset', 'matchSet'].every((m) => typeof d[m] === 'function')
  );
}

class Unfinished extends Error {}

/** Throws what re2js throws for a pattern it cannot compile (callers validate patterns first). */
export function compilePatternSet(patterns: readonly SetPattern[]): PatternSet {
  const set = new RE2Set(RE2Set.UNANCHORED, 0, CACHE_BYTES);
  for (const p of patterns) set.add(p.caseInsensitive ? `(?i)${p.source}` : p.source);
  set.compile();
  const dfa: unknown = (set as unknown as { dfa: unknown }).dfa;
  if (!isRe2jsDfa(dfa)) throw new Error('re2js: its DFA no longer has the shape the PII budget relies on');
  // A state's first uncached transition allocates its table: one slot per character class.
  const tableCost = Math.ceil(dfa.numClasses / 8);
  // The search in progress: what it may still spend. Uncached transitions are the work.
  let left = 0;
  // No reset mid-search: a spent budget or a full cache ends the search instead of starting it over.
  dfa.stepOrReset = function (this: Re2jsDfa, state, cls, rune, anchor) {
    const from = state as Re2jsState;
    const cached = from.next?.[cls];
    if (cached) return cached; // the end-of-text step comes here even when it is cached
    left -= from.nfaStates.length + TRANSITION_OVERHEAD + (from.next === null ? tableCost : 0);
    if (left < 0) return null;
    const next = this.step(state, cls, rune, anchor) as Re2jsState | null;
    // The closure of the result was computed whether or not the state was new.
    if (next) left -= next.nfaStates.length;
    return next;
  };
  // A DFA that gives up returns null, and RE2Set would then run the NFA: stop there instead.
  const matchSet = dfa.matchSet;
  dfa.matchSet = function (this: Re2jsDfa, input, pos, anchor) {
    const matched = matchSet.call(this, input, pos, anchor);
    if (matched === null) throw new Unfinished();
    return matched;
  };

  return {
    search(text, budget) {
      if (budget.remaining <= 0) return { finished: false };
      if (dfa.memBudget < CACHE_RESERVE) dfa.clearCache();
      left = budget.remaining;
      try {
        return { finished: true, matched: set.match(text) };
      } catch (err) {
        if (err instanceof Unfinished) return { finished: false };
        throw err;
      } finally {
        budget.remaining = Math.max(0, left);
      }
    },
  };
}
