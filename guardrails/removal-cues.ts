import { foldText } from './text-normalize.js';

/**
 * Asking to remove, stop or leave something, in the languages served (folded text): a message
 * with one of these never asks to add a tag, and a flow named after one is not asked for
 * ("unsubscribe me from the promo messages").
 */
const REMOVAL_CUE_SOURCE =
  String.raw`\b(?:remove|untag|unsubscribe|unsub|stop|cancel|opt(?:ing)? out|opt-out|delete|no longer|don't want|do not want|dont want|quit|leave|unfollow|take me off|off (?:the|your|this) list|not interested|turn off|unsign|` +
  String.raw`quita\w*|quitar\w*|elimina\w*|borra\w*|cancela\w*|darme de baja|dame de baja|de baja|baja de|dejar de|deja de|no me (?:mand|envi)\w*|desuscrib\w*|desapunt\w*|no (?:quiero|me interesa)|ya no|` +
  String.raw`remov\w*|parar|pare de|para de|sair|descadastr\w*|nao quero|nao me interessa|nao (?:mand|envi)\w*|` +
  String.raw`abmeld\w*|meld\w* (?:mich|uns)\b[^.!?]{0,60}\bab|entfern\w*|losch\w*|kundig\w*|stopp|aufhoren|hor auf|austrag\w*|trag mich aus|abbestell\w*|nicht mehr|kein interesse|` +
  String.raw`desabonn\w*|desinscri\w*|retirez|retirer|retire-moi|supprim\w*|arret\w*|annul\w*|ne plus|pas interesse\w*|` +
  String.raw`disiscriv\w*|cancell\w*|rimuov\w*|togli\w*|basta|smetti\w*|non (?:voglio|mi interessa)|non piu|` +
  String.raw`cikar\w*|kaldir\w*|iptal|sil|silin|abonelikten|istemiyorum|gondermeyin|gonderme|durdur\w*|` +
  String.raw`berhenti|hapus\w*|batal\w*|keluarkan|jangan kirim\w*|tidak mau|tidak (?:lagi|tertarik)|stop kirim)\b`;

/** One removal cue anywhere in folded text (a single word, for the lexicon). */
export const REMOVAL_CUE_RAW = new RegExp(REMOVAL_CUE_SOURCE);
const REMOVAL_CUE_ALL = new RegExp(REMOVAL_CUE_SOURCE, 'g');

/** REMOVAL_CUE_RAW on a message with accents folded ("dar de baja", "löschen" → "loschen"). */
export const REMOVAL_CUE = { test: (normalized: string) => REMOVAL_CUE_RAW.test(foldText(normalized)) };

/**
 * Cues that are themselves a refusal ("I don't want …"). Alone they ask to stop something; before
 * another cue they govern it ("I don't want you to remove the tag" asks to keep it); before "you
 * to" / "que" / "dass" they say what is not wanted in words the lexicon does not read.
 */
const WANT_NOT = /^(?:don't want|do not want|dont want|no quiero|nao quero|non voglio|tidak mau|istemiyorum)$/;
/** "No more newsletter": a negator before "more" refuses the thing, which a removal asks for too. */
const MORE = new Set(['more', 'mas', 'mais', 'mehr', 'plus', 'piu', 'lagi']);
/** Cues that ask to stop: before another cue they stop the removal ("stop removing my tag"). */
const STOPS = /^(?:stop|stopp|quit|deja de|dejar de|para de|pare de|parar|smetti\w*|hor auf|aufhoren|berhenti|basta)$/;
const COMPLEMENTS = new Set(['you', 'that', 'que', 'dass', 'che', 'agar', 'supaya', 'kamu', 'anda', 'kalian']);
/** Negators that close a clause after the verb: "entfernt das Tag nicht", "(ne) le retirez pas". */
const CLAUSE_FINAL_NEGATORS = new Set(['nicht', 'pas']);
/**
 * Turkish negates inside the verb: "kaldırma(yın)" is "don't remove", but "kaldırma" is also "the
 * removal" and "kaldırmanızı" "your removing". The runtime cannot tell: unsure. ("kaldırmak", the
 * infinitive, is not negative.)
 */
const TURKISH_NEGATIVE = /^(?:kaldir|cikar|durdur)m[ae](?!k)/;
const TURKISH_NEGATIVE_AUX = /^(?:etme|etmeyin|etmeyiniz|yapma|yapmayin)$/;
/**
 * Where one clause ends inside a sentence: commas, colons, a spaced dash, and "but" in each
 * language (not Italian "ma": French "ma" is "my"; text is folded, so "però" reads "pero").
 */
const CLAUSE_BREAK =
  /[,:()]|\s[-–—]\s|\b(?:but|however|pero|sino|porem|aber|sondern|mais|ama|fakat|ancak|tapi|namun)\b/;

/**
 * A sentence that only says no: at most three words, one of them a negator ("No thanks.", "no
 * way", "Não, obrigado."). The request lexicon and the removal reading share this one definition.
 */
export function isShortNo(words: readonly string[], isNegator: (w: string) => boolean): boolean {
  return words.length > 0 && words.length <= 3 && words.some(isNegator);
}

/**
 * How a clause speaks of removal: `remove` asks to remove or stop something; `keep` only refuses
 * a removal ("don't remove the VIP tag", "entfernt es nicht"); `unsure` holds a removal cue the
 * runtime cannot read either way (a negator elsewhere in the sentence, a Turkish verb form, "I
 * don't want you to …"); `none` has no cue.
 */
export type RemovalStance = 'remove' | 'keep' | 'unsure' | 'none';
export interface RemovalClause {
  /** The clause's text, folded. */
  text: string;
  stance: RemovalStance;
}

type CueState = 'plain' | 'negated' | 'unsure' | 'governs';
interface Token {
  word: string;
  start: number;
  end: number;
}
interface Cue {
  start: number;
  end: number;
  text: string;
}

function tokensOf(text: string): Token[] {
  return [...text.matchAll(/[\p{L}\p{N}']+/gu)].map((m) => ({
    word: m[0].replace(/^'+|'+$/g, ''),
    start: m.index,
    end: m.index + m[0].length,
  }));
}

const inside = (t: Token, c: Cue) => t.start >= c.start && t.end <= c.end;

function cueState(
  cue: Cue,
  cues: readonly Cue[],
  tokens: readonly Token[],
  clause: string,
  isNegator: (w: string) => boolean,
): CueState {
  const after = tokens.filter((t) => t.start >= cue.end);
  if (WANT_NOT.test(cue.text)) {
    if (cues.some((c) => c.start >= cue.end)) return 'governs';
    return after.slice(0, 2).some((t) => COMPLEMENTS.has(t.word)) ? 'unsure' : 'plain';
  }
  // "I don't want you to remove it", "stop removing it": the refusal before governs this cue.
  const adjacent = (first: Cue, second: Cue) => /^\s*$/.test(clause.slice(first.end, second.start));
  if (cues.some((c) => c.end <= cue.start && (WANT_NOT.test(c.text) || (STOPS.test(c.text) && adjacent(c, cue)))))
    return 'negated';
  if (STOPS.test(cue.text) && cues.some((c) => c.start >= cue.end && adjacent(cue, c))) return 'governs';
  // A negator counts unless another cue owns it ("stop", "no longer"), but a refusal's own
  // negator reaches past it ("I don't want them to stop …" is governed above).
  const owned = (t: Token) => cues.some((c) => c !== cue && inside(t, c) && !WANT_NOT.test(c.text));
  const before = tokens.filter((t) => t.end <= cue.start).slice(-3);
  if (before.some((t) => isNegator(t.word) && !owned(t))) return 'negated';
  if (/\bn'$/.test(clause.slice(0, cue.start))) return 'negated';
  if (after.some((t) => CLAUSE_FINAL_NEGATORS.has(t.word) && !owned(t))) return 'negated';
  if (TURKISH_NEGATIVE_AUX.test(after[0]?.word ?? '')) return 'negated';
  if (TURKISH_NEGATIVE.test(cue.text)) return 'unsure';
  return 'plain';
}

function cuesOf(clause: string): Cue[] {
  return [...clause.matchAll(REMOVAL_CUE_ALL)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }));
}

/** A clause's stance, before its sentence is read, and where its first plain ask starts (-1: none). */
function clauseStance(
  clause: string,
  cues: readonly Cue[],
  isNegator: (w: string) => boolean,
): { stance: RemovalStance; firstPlain: number } {
  if (!cues.length) return { stance: 'none', firstPlain: -1 };
  const tokens = tokensOf(clause);
  const states = cues.map((c) => cueState(c, cues, tokens, clause, isNegator));
  const firstPlain = states.indexOf('plain');
  if (firstPlain >= 0) return { stance: 'remove', firstPlain: cues[firstPlain]!.start };
  if (states.includes('unsure')) return { stance: 'unsure', firstPlain: -1 };
  if (states.includes('negated')) return { stance: 'keep', firstPlain: -1 };
  return { stance: 'none', firstPlain: -1 };
}

/**
 * The clauses of a message and how each speaks of removal. A sentence that asks to remove
 * something but holds a negator no cue owns before that ask ("I'm not sure, remove it"; "do not,
 * under any circumstances, remove it") is unsure: only a plain ask in a sentence without a stray
 * "no" before it reads as the contact's request. The negators are passed in: the request lexicon
 * owns them.
 */
export function removalClauses(
  normalized: string,
  isNegator: (w: string) => boolean,
  isPoliteAsk: (w: string) => boolean = () => false,
): RemovalClause[] {
  const out: RemovalClause[] = [];
  const sentences = foldText(normalized).match(/[^.!?;\n]+[.!?;\n]*|[.!?;\n]+/g) ?? [];
  // A short sentence that says no ("remove it? no way") leaves every ask in the message unsure.
  const saysNo = sentences.some((sentence) =>
    isShortNo(
      tokensOf(sentence).map((t) => t.word),
      isNegator,
    ),
  );
  for (const sentence of sentences) {
    // A question asks for a removal only when it opens with a polite ask ("can you remove…?");
    // "why would you remove it?" does not.
    const question = /[?¿]/.test(sentence) && !isPoliteAsk(tokensOf(sentence)[0]?.word ?? '');
    let strayBefore = false;
    for (const text of sentence.split(CLAUSE_BREAK)) {
      if (!text?.trim()) continue;
      const cues = cuesOf(text);
      const { stance, firstPlain } = clauseStance(text, cues, isNegator);
      // A negator outside every cue, before this clause's ask: a "no" the runtime cannot place.
      const tokens = tokensOf(text);
      const stray = tokens.some(
        (t, i) =>
          isNegator(t.word) &&
          !MORE.has(tokens[i + 1]?.word ?? '') &&
          (firstPlain < 0 || t.end <= firstPlain) &&
          !cues.some((c) => inside(t, c)),
      );
      const unsure = strayBefore || stray || saysNo || question;
      out.push({ text, stance: stance === 'remove' && unsure ? 'unsure' : stance });
      strayBefore ||= stray;
    }
  }
  return out;
}
