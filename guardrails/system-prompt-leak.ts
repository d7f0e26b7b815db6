import { containsCanary, plantedCanaries } from './canary.js';
import { pass, veto, type Guardrail, type GuardrailInput } from './guardrail.js';
import { normalizeText, wordsOf } from './text-normalize.js';

/**
 * System prompt leak (OWASP LLM07): a reply that reproduces the tenant's persona or the
 * instructions, or carries a secret, is vetoed. Three signals:
 *
 * 1. Canary. A random per-turn token is planted at the end of the instructions (canary.ts). If
 *    it appears in the reply, a quick reply or a staged argument (case, spaces and punctuation
 *    ignored), the prompt was dumped.
 * 2. Overlap. The persona and the rest of the instructions are each compared with the reply as
 *    word n-grams (n = `leak.ngramWords`, default 5). A section is leaked when the reply holds at
 *    least `coverageThreshold` (0.4) of its n-grams and at least `minSharedNgrams` (5) of them, or
 *    any verbatim run of `maxVerbatimWords` (20) consecutive section words. The minimum keeps a
 *    greeting ("I'm the friendly assistant of Sunrise Yoga Studio") from counting as a leak of a
 *    short persona.
 * 3. Secrets. Each of `leak.secrets` (case and spacing ignored) must not appear anywhere the
 *    canary is looked for.
 *
 * Limits: a paraphrase, a translation, or an encoding (base64, one word per message) of the
 * prompt is not caught by 2; the canary catches a dump only if the canary line is part of what
 * was dumped. OWASP's advice stands: nothing in the prompt should be a secret or a control; this
 * guardrail limits embarrassment, it does not protect credentials.
 */
export const systemPromptLeakGuardrail: Guardrail = {
  name: 'system-prompt-leak',
  check(input) {
    const { reply, config, instructions } = input;
    const settings = config.guardrails.leak;
    const outgoing = outgoingStrings(input);
    if (!outgoing.length) return pass('nothing outgoing');

    if (containsCanary(outgoing.join('\n'), plantedCanaries(instructions)))
      return veto("the reply carries this turn's prompt canary: the instructions were dumped");
    for (const secret of settings.secrets) {
      if (includesLoosely(outgoing, secret))
        return veto(
          `the reply carries one of the tenant's protected strings (${secret.length} characters, not repeated here)`,
        );
    }

    if (!reply) return pass('no reply text');
    const replyText = [reply.text, ...(reply.quickReplies ?? [])].join('\n');
    const replyWords = wordsOf(replyText);
    const rest = instructions
      .replace(config.persona, '')
      .split('\n')
      .filter((l) => !plantedCanaries(l).length)
      .join('\n');
    for (const [section, text] of [
      ['persona', config.persona],
      ['instructions', rest],
    ] as const) {
      const leak = overlapWithSection(replyWords, sectionOf(text, settings.ngramWords), settings.ngramWords);
      if (leak.longestRun >= settings.maxVerbatimWords)
        return veto(`the reply repeats ${leak.longestRun} consecutive words of the ${section}`);
      if (leak.shared >= settings.minSharedNgrams && leak.coverage >= settings.coverageThreshold) {
        return veto(
          `the reply reproduces ${Math.round(leak.coverage * 100)} % of the ${section}'s ${settings.ngramWords}-word sequences`,
        );
      }
    }
    return pass();
  },
};

function outgoingStrings({ reply, staged }: GuardrailInput): string[] {
  const out: string[] = [];
  if (reply) out.push(reply.text, ...(reply.quickReplies ?? []));
  for (const a of staged) out.push(JSON.stringify(a.args));
  return out;
}

function includesLoosely(texts: readonly string[], secret: string): boolean {
  // normalizeText leaves no run of white space, only single spaces and line breaks: one line.
  const needle = normalizeText(secret).replace(/\s/g, ' ');
  const squashedNeedle = needle.replace(/[^\p{L}\p{N}]/gu, '');
  return texts.some((t) => {
    const hay = normalizeText(t).replace(/\s/g, ' ');
    return (
      hay.includes(needle) ||
      (squashedNeedle.length >= 6 && hay.replace(/[^\p{L}\p{N}]/gu, '').includes(squashedNeedle))
    );
  });
}

export interface Overlap {
  /** Distinct section n-grams found in the reply. */
  shared: number;
  /** shared / distinct section n-grams. */
  coverage: number;
  /** Longest run of consecutive section words the reply repeats verbatim. */
  longestRun: number;
}

interface Section {
  words: string[];
  grams: Set<string>;
}

/**
 * A prompt section's words and n-grams. The persona and the rules (canary removed) are the same
 * on every turn of a tenant, so they are computed once per isolate (bounded cache).
 */
const sections = new Map<string, Section>();
/** How many sections stay computed; the oldest is dropped first (exported for its test). */
export const SECTION_CACHE_LIMIT = 200;

/** Exported for its test (the cache). */
export function sectionOf(text: string, n: number): Section {
  const key = `${n}\u0000${text}`;
  const hit = sections.get(key);
  if (hit) return hit;
  const words = wordsOf(text);
  const section = { words, grams: ngrams(words, n) };
  if (sections.size >= SECTION_CACHE_LIMIT) sections.delete(sections.keys().next().value as string);
  sections.set(key, section);
  return section;
}

export function overlap(replyWords: readonly string[], sectionWords: readonly string[], n: number): Overlap {
  return overlapWithSection(replyWords, { words: [...sectionWords], grams: ngrams(sectionWords, n) }, n);
}

function overlapWithSection(replyWords: readonly string[], section: Section, n: number): Overlap {
  const { words: sectionWords, grams: sectionGrams } = section;
  // A reply shorter than n words has no n-gram, so it shares none (and the scan below is skipped).
  const replyGrams = ngrams(replyWords, n);
  let shared = 0;
  for (const g of sectionGrams) if (replyGrams.has(g)) shared++;
  // A run of n words or more implies a shared n-gram, so the quadratic scan runs only then.
  const longestRun = shared ? longestCommonRun(replyWords, sectionWords) : 0;
  // A section too short for one n-gram is 0 % covered (not 0 / 0).
  return { shared, coverage: sectionGrams.size ? shared / sectionGrams.size : 0, longestRun };
}

function ngrams(words: readonly string[], n: number): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
  return out;
}

/** Longest common substring over words: O(|a|·|b|) time, O(|b|) memory. */
function longestCommonRun(a: readonly string[], b: readonly string[]): number {
  let prev = new Uint16Array(b.length + 1);
  let curr = new Uint16Array(b.length + 1);
  let best = 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const v = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : 0;
      curr[j] = v;
      best = Math.max(best, v);
    }
    [prev, curr] = [curr, prev];
  }
  return best;
}
