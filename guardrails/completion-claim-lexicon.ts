import { foldText } from './text-normalize.js';

/**
 * The words a reply uses to say something happened, by what it claims, in the languages a tenant
 * may set (English, Spanish, German, French, Portuguese). Matched on normalised text without
 * diacritics ("está" reads "esta"). Our own fixed patterns: no nested quantifiers, each linear.
 */
export type ClaimCategory = 'send' | 'tag' | 'field' | 'delete' | 'done' | 'approval';

export interface Claim {
  category: ClaimCategory;
  phrase: string;
  /** The sentence the claim sits in (normalised): the resource it names is read from it. */
  sentence: string;
}

const LEXICON: Record<ClaimCategory, RegExp[]> = {
  send: [
    /\b(?:i|we)(?:'ve| have| just| already| now)* (?:sent|forwarded|delivered|shared|dispatched)\b/,
    /\b(?:i'm|i am|we're|we are) (?:sending|forwarding)\b/,
    /\b(?:has|have) (?:just |already |now )?been (?:sent|delivered|forwarded|shared|dispatched)\b/,
    /\b(?:it|this|that|the \w+|your \w+) (?:was|is|were|are) (?:sent|delivered)\b/,
    /\bon (?:its|it's|their|the|his|her) way\b/,
    /\bheading (?:your|to you)\b/,
    /\bhere (?:it is|you go|you are)\b/,
    /\b(?:te |le |les |se lo |se la |te lo |te la )?(?:he|hemos|ya) (?:te )?(?:enviado|mandado|compartido|reenviado)\b/,
    /\b(?:ha|han) sido (?:enviad|mandad|compartid)[oa]s?\b/,
    // The simple past most Latin American Spanish uses ("ya te envié"); with its pronoun or "ya",
    // so the French noun "envie" ("j'ai envie de…") is not read as one.
    /\b(?:ya )?(?:te|le|les|se lo|se la|te lo|te la) (?:envie|mande|comparti|reenvie)\b/,
    /\bya (?:envie|mande|comparti|reenvie)\b/,
    /\b(?:esta|estan|va|van) (?:ya )?en camino\b/,
    /\b(?:ich|wir) (?:habe|haben) (?:dir |ihnen |es |sie |ihn |euch )?(?:\w+ ){0,2}(?:geschickt|gesendet|versendet|verschickt|zugeschickt|weitergeleitet)\b/,
    /\b(?:wurde|wurden|ist|sind) (?:bereits |schon |gerade )?(?:gesendet|versendet|verschickt|zugeschickt)\b/,
    /\b(?:ist|sind) (?:schon |bereits )?(?:auf dem weg|unterwegs)\b/,
    /\b(?:je vous ai|je t'ai|nous vous avons|j'ai|nous avons) (?:bien )?(?:envoye|transmis|partage|expedie)e?s?\b/,
    /\b(?:a|ont) ete (?:envoye|transmis|expedie)e?s?\b/,
    /\b(?:est|sont) en (?:route|chemin)\b/,
    /\b(?:ja )?(?:te |lhe |vos )?(?:enviei|mandei|enviamos|compartilhei)\b/,
    /\b(?:foi|foram) (?:enviad|mandad|compartilhad)[oa]s?\b/,
    /\besta (?:a caminho|chegando)\b/,
  ],
  tag: [
    /\b(?:i|we)(?:'ve| have| just| already)* (?:tagged|subscribed|unsubscribed|signed you up|enrolled|added you|removed you|removed the \w+ tag|added the \w+ tag)\b/,
    /\byou(?:'re| are|'ve been| have been)(?: now| already)? (?:tagged|subscribed|unsubscribed|signed up|enrolled|on the list|off the list|added to|removed from)\b/,
    /\b(?:he|hemos|te he|ya te he) (?:etiquetado|suscrito|apuntado|inscrito|anadido|agregado|quitado|eliminado)\b/,
    /\bya (?:estas|esta|quedaste) (?:apuntad|inscrit|suscrit|registrad)[oa]\b/,
    /\b(?:habe|haben) (?:dich|sie|euch) (?:\w+ ){0,2}(?:markiert|angemeldet|eingetragen|hinzugefugt|abgemeldet|entfernt)\b/,
    /\b(?:je vous ai|je t'ai|nous vous avons) (?:bien )?(?:inscrit|abonne|ajoute|retire|desinscrit)e?s?\b/,
    /\bvous etes (?:bien |maintenant )?(?:inscrit|abonne|desinscrit)e?s?\b/,
    /\b(?:te |lhe )?(?:inscrevi|adicionei|marquei|removi|cadastrei)\b/,
  ],
  field: [
    /\b(?:i|we)(?:'ve| have| just| already)* (?:saved|recorded|noted down|updated|stored|logged|changed|set) (?:your|it|that|this|the)\b/,
    /\b(?:i|we)(?:'ve| have| just| already)* (?:saved|recorded|noted|stored|logged|set) \w+ (?:as|for) (?:your|you)\b/,
    // "…and saved pilates as your class": the subject said once for two verbs.
    /\b(?:saved|recorded|noted|stored|logged|set|registered) (?:\w+ ){1,3}as (?:your|you)\b/,
    /\b(?:has|have) (?:just |already |now )?been (?:saved|recorded|updated|stored|noted|changed|registered|set)\b/,
    /\byour (?:\w+ ){0,2}(?:is|was) (?:now )?(?:saved|recorded|updated|set to|noted)\b/,
    /\b(?:i|we)(?:'ve| have| just| already)* (?:added|put) (?:\w+ ){0,2}(?:to|in|on|into) your (?:profile|preferences|account|file|record|details|notes)\b/,
    /\b(?:he|hemos|te he) (?:guardado|registrado|anotado|actualizado|cambiado)\b/,
    /\b(?:ha|han) sido (?:guardad|registrad|anotad|actualizad)[oa]s?\b/,
    /\bqueda (?:guardad|registrad|anotad|actualizad)[oa]\b/,
    // The simple past ("ya anoté"), only after "ya": without accents it reads like the formal
    // imperative ("guarde su esterilla").
    /\bya (?:te |lo |la )?(?:anote|guarde|registre|actualice|cambie)\b/,
    /\b(?:habe|haben) (?:\w+ ){0,3}(?:gespeichert|notiert|vermerkt|aktualisiert|eingetragen|geandert)\b/,
    /\b(?:wurde|wurden|ist) (?:\w+ )?(?:gespeichert|notiert|vermerkt|aktualisiert|eingetragen|geandert)\b/,
    /\b(?:j'ai|nous avons) (?:bien )?(?:enregistre|note|mis a jour|sauvegarde|modifie)e?s?\b/,
    /\b(?:a|ont) ete (?:enregistre|note|mis a jour|sauvegarde|modifie)e?s?\b/,
    /\b(?:registrei|salvei|anotei|atualizei|guardei)\b/,
    /\b(?:foi|foram) (?:registrad|salv|anotad|atualizad|guardad)[oa]s?\b/,
  ],
  delete: [
    /\b(?:has|have) (?:just |already |now )?been (?:deleted|erased|wiped)\b/,
    /\b(?:i|we)(?:'ve| have| just| already)* (?:deleted|erased|wiped) (?:your|it|that|this|the|all)\b/,
    /\byour (?:\w+ ){0,2}(?:is|was|are|were) (?:now )?(?:deleted|erased|wiped)\b/,
    /\b(?:he|hemos|ya) (?:borrado|eliminado)\b/,
    /\b(?:ha|han) sido (?:borrad|eliminad)[oa]s?\b/,
  ],
  done: [
    /(?<=^|[.!?¡¿\n] ?)(?:done|all done|all set|finished|completed|sorted)\b/,
    /\b(?:it's|it is|that's|that is|everything is|everything's|all is)(?: now| all)? (?:done|set|sorted|taken care of|complete|completed|finished)\b/,
    /\byou(?:'re| are) all set\b/,
    /(?<=^|[.!?¡¿\n] ?)(?:listo|hecho|todo listo|ya esta|ya esta hecho)\b/,
    /\b(?:esta|todo esta) (?:hecho|listo)\b/,
    /(?<=^|[.!?\n] ?)(?:erledigt|fertig|alles erledigt)\b/,
    /\b(?:ist|wurde) (?:alles )?erledigt\b/,
    /\bc'est (?:fait|regle|bon c'est fait)\b/,
    /(?<=^|[.!?\n] ?)(?:feito|pronto|tudo certo|tudo pronto)\b/,
  ],
  approval: [
    /\b(?:has|have|it's|it is|was|is)(?: been)? (?:approved|confirmed|accepted)\b/,
    /\b(?:i|we)(?:'ve| have)? (?:approved|confirmed)\b/,
    /\b(?:ha sido|esta|fue|queda) (?:aprobad|confirmad|aceptad)[oa]\b/,
    /\b(?:he|hemos) (?:aprobado|confirmado)\b/,
    /\b(?:wurde|ist) (?:\w+ )?(?:genehmigt|bestatigt|freigegeben)\b/,
    /\b(?:a ete|est) (?:approuve|confirme|valide|accepte)e?s?\b/,
    /\b(?:foi|esta) (?:aprovad|confirmad)[oa]\b/,
  ],
};

/**
 * Words that, earlier in the same clause as a claim, make it not a claim: negation, future,
 * condition ("not sent yet", "once approved it will be sent", "cuando lo apruebe"). The clause
 * starts after the last comma or stop, so "No problem, I've sent it!" is still a claim.
 */
const NOT_A_CLAIM =
  /\b(?:not|\w*n't|never|yet|will|won't|'ll|going to|once|when|after|as soon as|if|until|can|could|would|should|nao|ainda|todavia|aun|nunca|sera|seran|cuando|una vez|en cuanto|vai|vou|ira|va a|voy a|puedo|podemos|nicht|noch|kein|keine|wird|werden|sobald|wenn|nachdem|kann|konnen|pas|jamais|quand|des que|une fois|peux|pouvons|vais|quando|assim que|depois|posso|non|ancora|sara|saranno|appena|dopo|una volta|potrei|henuz|degil|sonra|zaman|eger|belum|tidak|akan|setelah|jika|kalau|nanti|begitu|bisa)\b/;

/** Later in the same clause, a condition makes it not a claim ("on its way once you confirm"). */
const CONDITION_AFTER =
  /\b(?:once|when|after|as soon as|if|until|cuando|una vez|en cuanto|sobald|wenn|nachdem|quand|des que|une fois|quando|assim que|depois|appena|dopo|una volta|sonra|onayladiginizda|onaylarsaniz|setelah|jika|kalau|begitu)\b/;

/** Normalised, lower case, without diacritics: what the lexicon reads. */
export function claimText(text: string): string {
  return foldText(text);
}

/**
 * Completed forms, word by word (accents folded), for every language served: participles
 * (perfect and passive: "enviado", "geschickt", "envoye", "inviato", "gonderildi", "dikirim"),
 * first-person simple pasts ("envie", "enviei", "gonderdim", "kukirim") and impersonal
 * completions. A clause that holds one, and is not negated, future, conditional or a question,
 * claims it happened. Words, not sequences: the auxiliary and word order do not matter, which
 * is what made the sequence patterns above miss "Die Broschüre wurde dir soeben geschickt".
 */
const FORMS: Partial<Record<ClaimCategory, string>> = {
  send:
    'sent forwarded dispatched emailed texted ' +
    'enviado enviada enviados enviadas mandado mandada mandados mandadas reenviado reenviada compartido compartida comparti ' +
    'enviei mandei compartilhado compartilhada compartilhei encaminhado encaminhada encaminhei ' +
    'geschickt gesendet versendet verschickt zugeschickt weitergeleitet ubermittelt zugesandt geschickte schickte sandte ' +
    'envoye envoyee envoyes envoyees transmis transmise expediee partagee ' +
    'inviato inviata inviati mandato mandata mandati spedito spedita spediti inoltrato inoltrata condiviso condivisa ' +
    'gonderdim gonderdik gonderildi gonderilmistir yolladim yolladik ilettim ilettik iletildi paylastim ' +
    'terkirim dikirim dikirimkan kukirim dikirimi',
  tag:
    'tagged subscribed unsubscribed enrolled ' +
    'etiquetado etiquetada suscrito suscrita inscrito inscrita apuntado apuntada anadido anadida agregado agregada quitado desuscrito inscribi suscribi ' +
    'inscrevi adicionei adicionado adicionada marquei removi removido removida cadastrado cadastrada cadastrei ' +
    'markiert angemeldet hinzugefugt abgemeldet ' +
    'inscrit inscrite inscrits abonnee ajoutee retiree desinscrit desinscrite desabonne ' +
    'iscritto iscritta aggiunto aggiunta rimosso rimossa tolto tolta etichettato etichettata ' +
    'ekledim eklendi kaldirdim kaldirildi etiketledim etiketlendi ' +
    'ditambahkan didaftarkan terdaftar dihapus ditandai',
  field:
    // Not a bare "noted": "Noted." / "Noted your interest." acknowledge a message; only the sequence
    // patterns above ("noted down your…", "has been noted") read it as a claim that a field was saved.
    'guardado guardada registrado registrada anotado anotada cambiado cambiada ' +
    'registrei salvei anotei atualizei guardei ' +
    'gespeichert notiert vermerkt aktualisiert eingetragen geandert ' +
    'enregistree modifiee ' +
    'salvato salvata registrato registrata annotato annotata segnato segnata modificato modificata ' +
    'kaydettim kaydettik kaydedildi guncelledim guncellendi degistirdim degistirildi ' +
    'disimpan tersimpan dicatat tercatat diperbarui diubah',
  delete:
    'deleted erased wiped borrado borrada eliminado eliminada apagado apagada excluido excluida geloscht supprimee cancellato cancellata eliminato eliminata sildim silindi',
  approval:
    'approved aprobado aprobada aprovado aprovada genehmigt freigegeben approuvee approvato approvata onaylandi onayladim disetujui',
};
const FORM_SETS = Object.entries(FORMS).map(
  ([category, words]) => [category as ClaimCategory, new Set(words!.split(' '))] as const,
);

/**
 * "Done" in the languages the sequence patterns above do not have (it, tr, id): a clause that is only this.
 * The stop before it is looked behind, not matched: the match (the phrase, and where its sentence starts) is the word.
 */
const DONE_WORDS =
  /(?<=^|[.!?¡¿\n] ?)(?:fatto|ecco fatto|tutto fatto|fatto!|completato|tamamdir|tamamlandi|hallettim|halloldu|yapildi|bitti|selesai|sudah selesai|beres|sudah beres)\b/;

const STOPS = [',', '.', ';', ':', '!', '?', '\n'];

/** The clause around a match: from the last stop before it to the next one after it. */
function clauseAround(
  normalized: string,
  start: number,
  end: number,
): { before: string; after: string; sentence: string; question: boolean } {
  const head = normalized.slice(Math.max(0, start - 80), start);
  const before = head.slice(Math.max(...STOPS.map((c) => head.lastIndexOf(c))) + 1);
  const tail = normalized.slice(end, end + 80);
  const after = tail.slice(0, Math.min(...STOPS.map((c) => (tail.indexOf(c) < 0 ? tail.length : tail.indexOf(c)))));
  // The sentence, for the resource it names (split only at sentence stops and "and"-less lists are one sentence).
  const sStart = Math.max(...['.', '!', '?', '\n'].map((c) => normalized.lastIndexOf(c, start - 1))) + 1;
  const nexts = ['.', '!', '?', '\n'].map((c) => normalized.indexOf(c, end)).filter((i) => i >= 0);
  const sEnd = nexts.length ? Math.min(...nexts) : normalized.length;
  const question = normalized[sEnd] === '?' || normalized.slice(sStart, start).includes('¿');
  return { before, after, sentence: normalized.slice(sStart, sEnd), question };
}

/** A claim here, unless negated, future or conditional — or, for a lone word form, asked ("¿ya te lo han enviado?"). */
function isClaimAt(normalized: string, start: number, end: number, lone = false): { sentence: string } | null {
  const { before, after, sentence, question } = clauseAround(normalized, start, end);
  if ((lone && question) || NOT_A_CLAIM.test(before) || CONDITION_AFTER.test(after)) return null;
  return { sentence };
}

/** Every claim in `text`: the sequence patterns, then the completed forms, with the sentence each sits in. */
export function findClaims(text: string): Claim[] {
  const normalized = claimText(text);
  const claims: Claim[] = [];
  for (const [category, patterns] of Object.entries(LEXICON) as [ClaimCategory, RegExp[]][]) {
    for (const pattern of [...patterns, ...(category === 'done' ? [DONE_WORDS] : [])]) {
      const global = new RegExp(pattern.source, 'g');
      for (const m of normalized.matchAll(global)) {
        const at = isClaimAt(normalized, m.index, m.index + m[0].length);
        // No trim: every pattern starts at a word (a stop before it is looked behind) and ends at one.
        if (at) claims.push({ category, phrase: m[0], sentence: at.sentence });
      }
    }
  }
  for (const m of normalized.matchAll(/[\p{L}\p{N}']+/gu)) {
    for (const [category, forms] of FORM_SETS) {
      if (!forms.has(m[0])) continue;
      const at = isClaimAt(normalized, m.index, m.index + m[0].length, true);
      if (at) claims.push({ category, phrase: m[0], sentence: at.sentence });
    }
  }
  return claims;
}
