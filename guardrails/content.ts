import type { GuardrailSettings } from '../core/tenant/guardrail-settings.js';
import { compilePatternSet, freshBudget, TURN_MATCHER_WORK, type PatternSet } from '../core/tenant/pattern-set.js';
import { compileTenantPattern } from '../core/tenant/tenant-pattern.js';
import { compileDenyList, type DenyList } from './deny-phrases.js';
import { findCardNumbers } from './card-numbers.js';
import { pass, veto, type Guardrail, type GuardrailInput } from './guardrail.js';
import { normalizeText, unConfuse } from './text-normalize.js';

/**
 * Content: what the contact would read (the reply, its quick replies, any staged send_content
 * text) must not contain a phrase on the tenant's deny-list, a payment card number, or text
 * matching one of the tenant's forbidden PII patterns. Recorded field values are checked for
 * card numbers and PII patterns too (a card number must not be stored in ManyChat either).
 * A hit vetoes; the veto reason names the rule and never repeats the matched PII.
 *
 * Deny phrases match as whole words after normalisation (NFKC, case, zero-width characters,
 * any run of spaces/punctuation between the phrase's words): "free money" catches "FREE-money"
 * but not "carefree moneybox". Inflections are not matched unless listed; evasions such as
 * spelling out letters or homoglyphs outside NFKC are not caught.
 *
 * Text longer than MAX_CHECKED_CHARS is vetoed without running patterns (reply-schema vetoes
 * it anyway): tenant regexes then always run on bounded input.
 *
 * The PII patterns run as one bounded DFA (core/tenant/pattern-set.ts): a turn's searches share
 * TURN_MATCHER_WORK steps of matcher work, so the worst config a save accepts costs a few
 * milliseconds a turn; a search that would need more stops, and the turn is vetoed (fail
 * closed: Workers freeze the clock during synchronous work, so the bound is a count, not a timer).
 */
export const MAX_CHECKED_CHARS = 4000;

interface Compiled {
  deny: DenyList | null;
  /** Names of the patterns in the set, by the set's indices. */
  names: string[];
  /** Null when there is no valid pattern, or they could not be compiled together (then all are `broken`). */
  set: PatternSet | null;
  /** Stored patterns that no longer compile (they were validated at save): each counts as a match. */
  broken: string[];
}

const cache = new Map<string, Compiled>();
/** How many distinct settings stay compiled; the oldest is dropped first (exported for its test). */
export const CACHE_LIMIT = 200;

/** Compiled once per distinct settings (an isolate serves many turns of few tenants). */
export function compileContentRules(settings: GuardrailSettings['content']): Compiled {
  const key = JSON.stringify([settings.denyPhrases, settings.piiPatterns]);
  const hit = cache.get(key);
  if (hit) return hit;
  const valid = settings.piiPatterns.filter(
    (p) =>
      compileTenantPattern(p.pattern, { caseInsensitive: p.caseInsensitive, maxProgram: Number.POSITIVE_INFINITY }).ok,
  );
  const compiled: Compiled = {
    deny: compileDenyList(settings.denyPhrases),
    names: valid.map((p) => p.name),
    set: null,
    broken: settings.piiPatterns.filter((p) => !valid.includes(p)).map((p) => p.name),
  };
  if (valid.length) {
    try {
      compiled.set = compilePatternSet(valid.map((p) => ({ source: p.pattern, caseInsensitive: p.caseInsensitive })));
    } catch {
      // Too large together for re2js (a config stored before the bounds): each counts as a match.
      compiled.broken.push(...compiled.names);
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

interface Checked {
  where: string;
  text: string;
  /** Deny phrases apply to what the contact reads; stored field values get PII checks only. */
  denyPhrases: boolean;
}

function targets({ reply, staged }: GuardrailInput): Checked[] {
  const out: Checked[] = [];
  if (reply) {
    out.push({ where: 'the reply', text: reply.text, denyPhrases: true });
    for (const q of reply.quickReplies ?? []) out.push({ where: 'a quick reply', text: q, denyPhrases: true });
  }
  for (const a of staged) {
    if (a.kind === 'send_content') out.push({ where: a.summary, text: JSON.stringify(a.args), denyPhrases: true });
    if (a.kind === 'set_field' && typeof a.args.value === 'string')
      out.push({ where: a.summary.replace(/ to .*/, ''), text: a.args.value, denyPhrases: false });
  }
  return out;
}

export const contentGuardrail: Guardrail = {
  name: 'content',
  check(input) {
    const settings = input.config.guardrails.content;
    const rules = compileContentRules(settings);
    const problems: string[] = [];
    const budget = freshBudget();
    for (const t of targets(input)) {
      if (t.text.length > MAX_CHECKED_CHARS) {
        problems.push(`${t.where} is longer than ${MAX_CHECKED_CHARS} characters and was not checked`);
        continue;
      }
      if (settings.blockCardNumbers) {
        const cards = findCardNumbers(t.text);
        if (cards.length) problems.push(`${t.where} contains a payment card number (${cards.join(', ')})`);
      }
      for (const name of rules.broken) problems.push(`${t.where} contains forbidden PII "${name}"`);
      if (rules.set) {
        const found = rules.set.search(t.text, budget);
        if (!found.finished) {
          problems.push(
            `${t.where} was not checked against the PII patterns: the turn passed the matcher's budget (${TURN_MATCHER_WORK.toLocaleString('en')} steps of matcher work)`,
          );
        } else for (const i of found.matched) problems.push(`${t.where} contains forbidden PII "${rules.names[i]}"`);
      }
      if (t.denyPhrases && rules.deny) {
        // Also read with look-alike letters folded: a Cyrillic "а" must not hide a denied phrase.
        const normalized = normalizeText(t.text);
        const phrase = rules.deny.find(normalized) ?? rules.deny.find(unConfuse(normalized));
        if (phrase !== null) problems.push(`${t.where} contains the denied phrase "${phrase}"`);
      }
    }
    return problems.length ? veto(problems.join('; ')) : pass();
  },
};
