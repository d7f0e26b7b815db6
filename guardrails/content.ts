import { RE2JS } from 're2js';
import type { GuardrailSettings } from '../core/tenant/guardrail-settings.js';
import { compileTenantPattern, MAX_TOTAL_PII_PROGRAM } from '../core/tenant/tenant-pattern.js';
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
 */
export const MAX_CHECKED_CHARS = 4000;

/**
 * The PII patterns' matching work one turn may cost, in (program instructions × characters): an
 * RE2 search costs at most that, whatever the text. Synchronous work cannot be interrupted (the
 * guardrail timeout fires after it), so the work is added up before each search: what would pass
 * the budget is not searched, and the turn is vetoed (fail closed). The budget fits the largest
 * config a save accepts on a full reply plus as much again in quick replies and field values.
 */
export const MAX_TURN_PII_WORK = MAX_TOTAL_PII_PROGRAM * MAX_CHECKED_CHARS * 2;

interface Compiled {
  /** Group 1 is the denied phrase as it appears. */
  deny: RE2JS | null;
  pii: { name: string; re: RE2JS | null; size: number }[];
}

const cache = new Map<string, Compiled>();
/** How many distinct settings stay compiled; the oldest is dropped first (exported for its test). */
export const CACHE_LIMIT = 200;

/** RE2 quoting of a literal (RE2JS.quote): the phrase matches as written. */
function escapeRegex(text: string): string {
  return RE2JS.quote(text);
}

/** Compiled once per distinct settings (an isolate serves many turns of few tenants). */
export function compileContentRules(settings: GuardrailSettings['content']): Compiled {
  const key = JSON.stringify([settings.denyPhrases, settings.piiPatterns]);
  const hit = cache.get(key);
  if (hit) return hit;
  const phrases = settings.denyPhrases
    .map((p) =>
      normalizeText(p)
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean),
    )
    .filter((words) => words.length)
    .map((words) => words.map(escapeRegex).join('[^\\p{L}\\p{N}]+'));
  // Tenant text, so the linear-time engine: a phrase between non-letters (RE2 has no lookaround).
  // Built by us from quoted, bounded phrases; should it ever fail to compile, the throw makes the
  // guardrail escalate (fail closed).
  const deny = phrases.length
    ? RE2JS.compile(`(?:^|[^\\p{L}\\p{N}])(${phrases.join('|')})(?:[^\\p{L}\\p{N}]|$)`)
    : null;
  const programs = new Map<string, ReturnType<typeof compileTenantPattern>>();
  const compiled: Compiled = {
    deny,
    pii: settings.piiPatterns.map((p) => {
      const memoKey = `${p.caseInsensitive ? 'i' : 's'}:${p.pattern}`;
      const c =
        programs.get(memoKey) ??
        compileTenantPattern(p.pattern, { caseInsensitive: p.caseInsensitive, maxProgram: Number.POSITIVE_INFINITY });
      programs.set(memoKey, c);
      // A stored pattern that no longer compiles (it was validated at save) is a match: fail closed.
      return { name: p.name, re: c.ok ? c.pattern : null, size: c.ok ? c.pattern.programSize() : 0 };
    }),
  };
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
    let work = 0;
    for (const t of targets(input)) {
      if (t.text.length > MAX_CHECKED_CHARS) {
        problems.push(`${t.where} is longer than ${MAX_CHECKED_CHARS} characters and was not checked`);
        continue;
      }
      if (settings.blockCardNumbers) {
        const cards = findCardNumbers(t.text);
        if (cards.length) problems.push(`${t.where} contains a payment card number (${cards.join(', ')})`);
      }
      for (const p of rules.pii) {
        work += p.size * (t.text.length + 1);
        if (work > MAX_TURN_PII_WORK) {
          problems.push(
            `${t.where} was not checked against the PII patterns: the turn passed the matching budget (${MAX_TURN_PII_WORK} instruction-characters)`,
          );
          break;
        }
        if (!p.re || p.re.matcher(t.text).find()) problems.push(`${t.where} contains forbidden PII "${p.name}"`);
      }
      if (t.denyPhrases && rules.deny) {
        // Also read with look-alike letters folded: a Cyrillic "а" must not hide a denied phrase.
        const normalized = normalizeText(t.text);
        const m = [normalized, unConfuse(normalized)].map((text) => rules.deny!.matcher(text)).find((x) => x.find());
        if (m) problems.push(`${t.where} contains the denied phrase "${m.group(1)}"`);
      }
    }
    return problems.length ? veto(problems.join('; ')) : pass();
  },
};
