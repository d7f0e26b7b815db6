import { z } from 'zod';

/**
 * The runtime's own words to a contact — what the model never writes: the status of gated
 * actions, the Yes/No captions, the answers to Yes and No, rejection and expiry notices, the
 * handoff, holding, fallback, rate-limit and suspended replies. One catalogue, every language the
 * product ships, chosen per contact (the channel's language when it gives one, else the tenant's
 * locale), with tenant overrides per language and key.
 *
 * Placeholders: `{what}` (one or more actions, as `describeAction` says them), `{name}`,
 * `{label}`, `{value}`, `{summary}` (the kind's own English summary) in the action descriptions.
 * An override may use only its key's placeholders and must keep `{what}` (checked at save).
 */
export const RUNTIME_LOCALES = ['en', 'es', 'pt', 'de', 'fr', 'it', 'tr', 'id'] as const;
export type RuntimeLocale = (typeof RUNTIME_LOCALES)[number];

export const WORD_KEYS = [
  'confirmPrompt',
  'approvalWait',
  'yes',
  'no',
  'confirmed',
  'declined',
  'buttonInvalid',
  'notVerified',
  'alreadyAnswered',
  'confirmationExpired',
  'approvalRejected',
  'approvalExpired',
  'pendingRefused',
  'handoffReply',
  'holdingReply',
  'fallbackReply',
  'rateLimited',
  'suspended',
  'noText',
  'notDone',
  'refusedNote',
  'actionSendFlow',
  'actionSendContent',
  'actionAddTag',
  'actionRemoveTag',
  'actionSetField',
  'listSeparator',
] as const;
export type WordKey = (typeof WORD_KEYS)[number];
export type WordSet = Record<WordKey, string>;

const en: WordSet = {
  confirmPrompt: 'Please confirm with Yes or No: {what}.',
  approvalWait: 'A team member will review this before anything happens: {what}.',
  yes: 'Yes',
  no: 'No',
  confirmed: 'Confirmed: {what}. It is on its way.',
  declined: 'OK, nothing was changed.',
  buttonInvalid: 'That button is no longer valid; nothing was changed.',
  notVerified: 'That request could not be verified; nothing was changed.',
  alreadyAnswered: 'You already answered that one; nothing more was changed.',
  confirmationExpired: 'That request has expired; nothing was changed.',
  approvalRejected: 'A team member reviewed your request and did not approve it. Nothing was changed.',
  approvalExpired: 'Your request was not reviewed in time. Nothing was changed.',
  pendingRefused: 'This can no longer be done, because the business changed its settings: {what}. Nothing was changed.',
  handoffReply: 'Thanks! A teammate will pick this up shortly.',
  holdingReply: 'One moment, I am looking into it.',
  fallbackReply: 'Sorry, I could not help with that just now. A teammate will read your message.',
  rateLimited: "You're sending messages faster than I can answer. Please wait a minute and write again.",
  suspended: "Thanks for your message! We can't reply here right now.",
  noText: 'Thanks! I can only read text messages here — could you write your question in words?',
  // English says an action as its kind's summary (what the dashboard and the cards say too).
  // The staged writes a vetoed or escalated turn did not perform, and a write a tool refused: the runtime says so, not the model.
  notDone: 'Not done: {what}.',
  refusedNote: 'Part of this could not be done here; nothing was changed for it.',
  actionSendFlow: '{summary}',
  actionSendContent: '{summary}',
  actionAddTag: '{summary}',
  actionRemoveTag: '{summary}',
  actionSetField: '{summary}',
  listSeparator: '; ',
};

const es: WordSet = {
  confirmPrompt: 'Confirma con Sí o No: {what}.',
  approvalWait: 'Una persona del equipo lo revisará antes de que ocurra nada: {what}.',
  yes: 'Sí',
  no: 'No',
  confirmed: 'Confirmado: {what}. Está en camino.',
  declined: 'De acuerdo, no se cambió nada.',
  buttonInvalid: 'Ese botón ya no es válido; no se cambió nada.',
  notVerified: 'No se pudo verificar esa solicitud; no se cambió nada.',
  alreadyAnswered: 'Ya respondiste a eso; no se cambió nada más.',
  confirmationExpired: 'Esa solicitud ha caducado; no se cambió nada.',
  approvalRejected: 'Una persona del equipo revisó tu solicitud y no la aprobó. No se cambió nada.',
  approvalExpired: 'Tu solicitud no se revisó a tiempo. No se cambió nada.',
  pendingRefused: 'Esto ya no se puede hacer porque el negocio cambió su configuración: {what}. No se cambió nada.',
  handoffReply: '¡Gracias! Una persona del equipo te atenderá en breve.',
  holdingReply: 'Un momento, lo estoy revisando.',
  fallbackReply: 'Lo siento, ahora mismo no he podido ayudarte. Una persona del equipo leerá tu mensaje.',
  rateLimited: 'Envías mensajes más rápido de lo que puedo responder. Espera un minuto y vuelve a escribir.',
  suspended: '¡Gracias por tu mensaje! Ahora mismo no podemos responder por aquí.',
  noText: '¡Gracias! Aquí solo puedo leer mensajes de texto. ¿Puedes escribir tu pregunta con palabras?',
  notDone: 'No se ha hecho: {what}.',
  refusedNote: 'Una parte no se puede hacer por aquí; para ella no se cambió nada.',
  actionSendFlow: 'enviarte «{name}»',
  actionSendContent: 'enviarte el mensaje «{name}»',
  actionAddTag: 'añadir la etiqueta «{name}»',
  actionRemoveTag: 'quitar la etiqueta «{name}»',
  actionSetField: 'poner {label} en «{value}»',
  listSeparator: '; ',
};

const pt: WordSet = {
  confirmPrompt: 'Confirme com Sim ou Não: {what}.',
  approvalWait: 'Alguém da equipe vai revisar antes de qualquer coisa acontecer: {what}.',
  yes: 'Sim',
  no: 'Não',
  confirmed: 'Confirmado: {what}. Está a caminho.',
  declined: 'Certo, nada foi alterado.',
  buttonInvalid: 'Esse botão não é mais válido; nada foi alterado.',
  notVerified: 'Não foi possível verificar esse pedido; nada foi alterado.',
  alreadyAnswered: 'Você já respondeu a isso; nada mais foi alterado.',
  confirmationExpired: 'Esse pedido expirou; nada foi alterado.',
  approvalRejected: 'Alguém da equipe analisou seu pedido e não o aprovou. Nada foi alterado.',
  approvalExpired: 'Seu pedido não foi analisado a tempo. Nada foi alterado.',
  pendingRefused: 'Isso não pode mais ser feito, porque a empresa mudou suas configurações: {what}. Nada foi alterado.',
  handoffReply: 'Obrigado! Alguém da equipe vai te atender em breve.',
  holdingReply: 'Um momento, estou verificando.',
  fallbackReply: 'Desculpe, não consegui ajudar agora. Alguém da equipe vai ler sua mensagem.',
  rateLimited: 'Você está enviando mensagens mais rápido do que consigo responder. Espere um minuto e escreva de novo.',
  suspended: 'Obrigado pela mensagem! No momento não conseguimos responder por aqui.',
  noText: 'Obrigado! Aqui só consigo ler mensagens de texto. Pode escrever a sua pergunta?',
  notDone: 'Não foi feito: {what}.',
  refusedNote: 'Uma parte não pode ser feita por aqui; para ela nada foi alterado.',
  actionSendFlow: 'enviar para você "{name}"',
  actionSendContent: 'enviar para você a mensagem "{name}"',
  actionAddTag: 'adicionar a etiqueta "{name}"',
  actionRemoveTag: 'remover a etiqueta "{name}"',
  actionSetField: 'definir {label} como "{value}"',
  listSeparator: '; ',
};

const de: WordSet = {
  confirmPrompt: 'Bitte bestätige mit Ja oder Nein: {what}.',
  approvalWait: 'Ein Teammitglied prüft das, bevor etwas passiert: {what}.',
  yes: 'Ja',
  no: 'Nein',
  confirmed: 'Bestätigt: {what}. Es ist unterwegs.',
  declined: 'In Ordnung, es wurde nichts geändert.',
  buttonInvalid: 'Diese Schaltfläche ist nicht mehr gültig; es wurde nichts geändert.',
  notVerified: 'Diese Anfrage konnte nicht überprüft werden; es wurde nichts geändert.',
  alreadyAnswered: 'Das hast du schon beantwortet; es wurde nichts weiter geändert.',
  confirmationExpired: 'Diese Anfrage ist abgelaufen; es wurde nichts geändert.',
  approvalRejected: 'Ein Teammitglied hat deine Anfrage geprüft und nicht genehmigt. Es wurde nichts geändert.',
  approvalExpired: 'Deine Anfrage wurde nicht rechtzeitig geprüft. Es wurde nichts geändert.',
  pendingRefused:
    'Das ist nicht mehr möglich, weil das Unternehmen seine Einstellungen geändert hat: {what}. Es wurde nichts geändert.',
  handoffReply: 'Danke! Ein Teammitglied meldet sich in Kürze.',
  holdingReply: 'Einen Moment, ich sehe nach.',
  fallbackReply: 'Entschuldige, dabei konnte ich gerade nicht helfen. Ein Teammitglied liest deine Nachricht.',
  rateLimited: 'Du schreibst schneller, als ich antworten kann. Bitte warte eine Minute und schreib dann wieder.',
  suspended: 'Danke für deine Nachricht! Wir können hier gerade nicht antworten.',
  noText: 'Danke! Ich kann hier nur Textnachrichten lesen – kannst du deine Frage in Worten schreiben?',
  notDone: 'Nicht ausgeführt: {what}.',
  refusedNote: 'Ein Teil davon geht hier nicht; dafür bleibt alles, wie es ist.',
  actionSendFlow: 'dir „{name}“ schicken',
  actionSendContent: 'dir die Nachricht „{name}“ schicken',
  actionAddTag: 'das Tag „{name}“ hinzufügen',
  actionRemoveTag: 'das Tag „{name}“ entfernen',
  actionSetField: '{label} auf „{value}“ setzen',
  listSeparator: '; ',
};

const fr: WordSet = {
  confirmPrompt: 'Merci de confirmer par Oui ou Non : {what}.',
  approvalWait: "Un membre de l'équipe vérifiera avant que quoi que ce soit ne se fasse : {what}.",
  yes: 'Oui',
  no: 'Non',
  confirmed: 'Confirmé : {what}. C’est en route.',
  declined: "D'accord, rien n'a été modifié.",
  buttonInvalid: "Ce bouton n'est plus valable ; rien n'a été modifié.",
  notVerified: "Cette demande n'a pas pu être vérifiée ; rien n'a été modifié.",
  alreadyAnswered: "Vous avez déjà répondu ; rien d'autre n'a été modifié.",
  confirmationExpired: "Cette demande a expiré ; rien n'a été modifié.",
  approvalRejected: "Un membre de l'équipe a examiné votre demande et ne l'a pas approuvée. Rien n'a été modifié.",
  approvalExpired: "Votre demande n'a pas été examinée à temps. Rien n'a été modifié.",
  pendingRefused: "Ce n'est plus possible, car l'entreprise a modifié ses réglages : {what}. Rien n'a été modifié.",
  handoffReply: "Merci ! Un membre de l'équipe va vous répondre sous peu.",
  holdingReply: 'Un instant, je regarde.',
  fallbackReply: "Désolé, je n'ai pas pu vous aider pour le moment. Un membre de l'équipe lira votre message.",
  rateLimited: 'Vous envoyez des messages plus vite que je ne peux répondre. Attendez une minute et réécrivez.',
  suspended: 'Merci pour votre message ! Nous ne pouvons pas répondre ici pour le moment.',
  noText: 'Merci ! Je ne peux lire ici que des messages texte : pouvez-vous écrire votre question ?',
  notDone: 'Non effectué : {what}.',
  refusedNote: 'Une partie ne peut pas se faire ici ; pour elle, rien ne change.',
  actionSendFlow: 'vous envoyer « {name} »',
  actionSendContent: 'vous envoyer le message « {name} »',
  actionAddTag: 'ajouter le tag « {name} »',
  actionRemoveTag: 'retirer le tag « {name} »',
  actionSetField: 'mettre {label} à « {value} »',
  listSeparator: ' ; ',
};

const it: WordSet = {
  confirmPrompt: 'Conferma con Sì o No: {what}.',
  approvalWait: 'Una persona del team lo verificherà prima che succeda qualcosa: {what}.',
  yes: 'Sì',
  no: 'No',
  confirmed: 'Confermato: {what}. È in arrivo.',
  declined: 'Va bene, non è stato cambiato nulla.',
  buttonInvalid: 'Quel pulsante non è più valido; non è stato cambiato nulla.',
  notVerified: 'Non è stato possibile verificare la richiesta; non è stato cambiato nulla.',
  alreadyAnswered: 'Hai già risposto; non è stato cambiato altro.',
  confirmationExpired: 'La richiesta è scaduta; non è stato cambiato nulla.',
  approvalRejected:
    'Una persona del team ha esaminato la tua richiesta e non l’ha approvata. Non è stato cambiato nulla.',
  approvalExpired: 'La tua richiesta non è stata esaminata in tempo. Non è stato cambiato nulla.',
  pendingRefused:
    "Non è più possibile, perché l'attività ha cambiato le sue impostazioni: {what}. Non è stato cambiato nulla.",
  handoffReply: 'Grazie! Una persona del team ti risponderà a breve.',
  holdingReply: 'Un momento, sto controllando.',
  fallbackReply: 'Mi dispiace, ora non sono riuscito ad aiutarti. Una persona del team leggerà il tuo messaggio.',
  rateLimited: 'Stai inviando messaggi più velocemente di quanto io possa rispondere. Aspetta un minuto e riscrivi.',
  suspended: 'Grazie per il messaggio! Al momento non possiamo rispondere qui.',
  noText: 'Grazie! Qui posso leggere solo messaggi di testo: puoi scrivere la tua domanda a parole?',
  notDone: 'Non eseguito: {what}.',
  refusedNote: 'Una parte non si può fare qui; per quella non è stato cambiato nulla.',
  actionSendFlow: 'inviarti «{name}»',
  actionSendContent: 'inviarti il messaggio «{name}»',
  actionAddTag: 'aggiungere l’etichetta «{name}»',
  actionRemoveTag: 'togliere l’etichetta «{name}»',
  actionSetField: 'impostare {label} su «{value}»',
  listSeparator: '; ',
};

const tr: WordSet = {
  confirmPrompt: 'Lütfen Evet veya Hayır ile onaylayın: {what}.',
  approvalWait: 'Bir şey yapılmadan önce bir ekip üyesi bunu inceleyecek: {what}.',
  yes: 'Evet',
  no: 'Hayır',
  confirmed: 'Onaylandı: {what}. Yolda.',
  declined: 'Tamam, hiçbir şey değiştirilmedi.',
  buttonInvalid: 'Bu düğme artık geçerli değil; hiçbir şey değiştirilmedi.',
  notVerified: 'Bu istek doğrulanamadı; hiçbir şey değiştirilmedi.',
  alreadyAnswered: 'Bunu zaten yanıtladınız; başka bir şey değiştirilmedi.',
  confirmationExpired: 'Bu isteğin süresi doldu; hiçbir şey değiştirilmedi.',
  approvalRejected: 'Bir ekip üyesi isteğinizi inceledi ve onaylamadı. Hiçbir şey değiştirilmedi.',
  approvalExpired: 'İsteğiniz zamanında incelenmedi. Hiçbir şey değiştirilmedi.',
  pendingRefused: 'İşletme ayarlarını değiştirdiği için bu artık yapılamıyor: {what}. Hiçbir şey değiştirilmedi.',
  handoffReply: 'Teşekkürler! Bir ekip üyesi kısa süre içinde ilgilenecek.',
  holdingReply: 'Bir dakika, bakıyorum.',
  fallbackReply: 'Üzgünüm, şu anda yardımcı olamadım. Bir ekip üyesi mesajınızı okuyacak.',
  rateLimited: 'Yanıtlayabileceğimden daha hızlı mesaj gönderiyorsunuz. Lütfen bir dakika bekleyip tekrar yazın.',
  suspended: 'Mesajınız için teşekkürler! Şu anda buradan yanıt veremiyoruz.',
  noText: 'Teşekkürler! Burada yalnızca metin mesajlarını okuyabiliyorum; sorunuzu yazıyla iletebilir misiniz?',
  notDone: 'Yapılmadı: {what}.',
  refusedNote: 'Bunun bir kısmı burada yapılamıyor; onun için hiçbir şey değiştirilmedi.',
  actionSendFlow: 'size "{name}" göndermek',
  actionSendContent: 'size "{name}" mesajını göndermek',
  actionAddTag: '"{name}" etiketini eklemek',
  actionRemoveTag: '"{name}" etiketini kaldırmak',
  actionSetField: '{label} değerini "{value}" yapmak',
  listSeparator: '; ',
};

const id: WordSet = {
  confirmPrompt: 'Mohon konfirmasi dengan Ya atau Tidak: {what}.',
  approvalWait: 'Anggota tim akan memeriksanya sebelum apa pun dilakukan: {what}.',
  yes: 'Ya',
  no: 'Tidak',
  confirmed: 'Dikonfirmasi: {what}. Sedang dalam perjalanan.',
  declined: 'Baik, tidak ada yang diubah.',
  buttonInvalid: 'Tombol itu sudah tidak berlaku; tidak ada yang diubah.',
  notVerified: 'Permintaan itu tidak dapat diverifikasi; tidak ada yang diubah.',
  alreadyAnswered: 'Anda sudah menjawabnya; tidak ada lagi yang diubah.',
  confirmationExpired: 'Permintaan itu sudah kedaluwarsa; tidak ada yang diubah.',
  approvalRejected: 'Anggota tim telah meninjau permintaan Anda dan tidak menyetujuinya. Tidak ada yang diubah.',
  approvalExpired: 'Permintaan Anda tidak ditinjau tepat waktu. Tidak ada yang diubah.',
  pendingRefused:
    'Ini tidak dapat dilakukan lagi karena bisnis telah mengubah pengaturannya: {what}. Tidak ada yang diubah.',
  handoffReply: 'Terima kasih! Anggota tim akan segera membantu Anda.',
  holdingReply: 'Sebentar, saya periksa dulu.',
  fallbackReply: 'Maaf, saya belum bisa membantu saat ini. Anggota tim akan membaca pesan Anda.',
  rateLimited: 'Anda mengirim pesan lebih cepat daripada yang bisa saya jawab. Tunggu sebentar lalu tulis lagi.',
  suspended: 'Terima kasih atas pesan Anda! Saat ini kami tidak dapat membalas di sini.',
  noText: 'Terima kasih! Di sini saya hanya bisa membaca pesan teks. Bisakah Anda menuliskan pertanyaan Anda?',
  notDone: 'Tidak dilakukan: {what}.',
  refusedNote: 'Sebagian dari ini tidak bisa dilakukan di sini; untuk itu tidak ada yang diubah.',
  actionSendFlow: 'mengirimkan "{name}" kepada Anda',
  actionSendContent: 'mengirimkan pesan "{name}" kepada Anda',
  actionAddTag: 'menambahkan tag "{name}"',
  actionRemoveTag: 'menghapus tag "{name}"',
  actionSetField: 'mengatur {label} menjadi "{value}"',
  listSeparator: '; ',
};

/** The shipped catalogue: every key in every language (a test checks it, beyond the type). */
export const CATALOGUE: Record<RuntimeLocale, WordSet> = { en, es, pt, de, fr, it, tr, id };

/** The placeholders a text uses, e.g. `{what}`. */
export function placeholdersOf(text: string): string[] {
  return [...new Set(text.match(/\{[a-z]+\}/g) ?? [])].sort();
}

/** The placeholders each key may use; those in `required` it must. */
const ACTION_NAME = { allowed: ['{name}', '{summary}'], required: [] };
export const PLACEHOLDERS: Record<WordKey, { allowed: string[]; required: string[] }> = Object.fromEntries(
  WORD_KEYS.map((key) => {
    if (
      key === 'confirmPrompt' ||
      key === 'approvalWait' ||
      key === 'confirmed' ||
      key === 'notDone' ||
      key === 'pendingRefused'
    )
      return [key, { allowed: ['{what}'], required: ['{what}'] }];
    if (key === 'actionSetField') return [key, { allowed: ['{label}', '{value}', '{summary}'], required: [] }];
    if (key.startsWith('action')) return [key, ACTION_NAME];
    return [key, { allowed: [], required: [] }];
  }),
) as Record<WordKey, { allowed: string[]; required: string[] }>;

/** Why a text cannot stand for `key` (a placeholder it may not use, or one it must but does not), or null. */
export function placeholderProblem(key: WordKey, text: string): string | null {
  const { allowed, required } = PLACEHOLDERS[key];
  const used = placeholdersOf(text);
  const unknown = used.filter((p) => !allowed.includes(p));
  if (unknown.length) return `may not use ${unknown.join(', ')} (allowed: ${allowed.join(', ') || 'none'})`;
  const missing = required.filter((p) => !used.includes(p));
  return missing.length ? `must say ${missing.join(', ')}` : null;
}

/** A tenant's overrides: per language, per key, a text with only its key's placeholders. */
export const WordOverridesSchema = z
  .partialRecord(z.enum(RUNTIME_LOCALES), z.partialRecord(z.enum(WORD_KEYS), z.string().max(640)))
  .superRefine((overrides, ctx) => {
    for (const [locale, words] of Object.entries(overrides)) {
      for (const [key, text] of Object.entries(words ?? {})) {
        const problem = placeholderProblem(key as WordKey, text ?? '');
        if (problem) ctx.addIssue({ code: 'custom', path: [locale, key], message: problem });
      }
    }
  });
export type WordOverrides = z.infer<typeof WordOverridesSchema>;

/** Language names and codes a channel may give (`es_ES`, `pt-BR`, `Spanish`, `Español`…). */
const LANGUAGE_NAMES: Record<string, RuntimeLocale> = {
  english: 'en',
  spanish: 'es',
  espanol: 'es',
  castellano: 'es',
  portuguese: 'pt',
  portugues: 'pt',
  german: 'de',
  deutsch: 'de',
  french: 'fr',
  francais: 'fr',
  italian: 'it',
  italiano: 'it',
  turkish: 'tr',
  turkce: 'tr',
  indonesian: 'id',
  'bahasa indonesia': 'id',
  indonesia: 'id',
};

/** The shipped locale a channel's language or locale string names, or null. */
export function localeOf(language: string | undefined | null): RuntimeLocale | null {
  if (!language) return null;
  const folded = language
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .trim()
    .toLowerCase();
  const code = /^([a-z]{2,3})(?:[-_][a-z0-9]+)*$/.exec(folded)?.[1];
  // Indonesian's old ISO code is "in" (Java and Facebook locales still use in_ID).
  const normalizedCode = code === 'in' ? 'id' : code;
  if (normalizedCode && (RUNTIME_LOCALES as readonly string[]).includes(normalizedCode))
    return normalizedCode as RuntimeLocale;
  return LANGUAGE_NAMES[folded] ?? null;
}

/** What the words read of a tenant: its locale, its overrides, and the texts it wrote itself. */
export interface WordsTenant {
  locale: RuntimeLocale;
  words?: WordOverrides | undefined;
  /** The tenant's own texts (written in its locale): they stand for their key in that language. */
  own?: Partial<Record<WordKey, string>>;
}

export interface RuntimeWords {
  locale: RuntimeLocale;
  /** The text for `key`, placeholders filled. */
  say(key: WordKey, values?: Record<string, string>): string;
}

/**
 * The words for one contact: the channel's language when it is one the product ships, else the
 * tenant's locale. For each key: the tenant's override for that language; else, in the tenant's
 * own locale, the text the tenant wrote (its handoff reply…) unless it is the shipped English
 * default it never changed; else the catalogue.
 */
export function runtimeWords(tenant: WordsTenant, contactLanguage?: string | null): RuntimeWords {
  const locale = localeOf(contactLanguage) ?? tenant.locale;
  const overrides = tenant.words?.[locale] ?? {};
  return {
    locale,
    say(key, values = {}) {
      const own = tenant.own?.[key];
      // A text the tenant left empty on purpose (no holding message) stays empty in every language.
      if (own === '' && overrides[key] === undefined) return '';
      const ownCounts = own !== undefined && locale === tenant.locale && !(tenant.locale !== 'en' && own === en[key]);
      const template = overrides[key] ?? (ownCounts ? own : CATALOGUE[locale][key]);
      return template.replace(/\{([a-z]+)\}/g, (m, name: string) => values[name] ?? m);
    },
  };
}

/** The English catalogue as it ships: for a caller that has no tenant at hand. */
export const CATALOGUE_EN_WORDS: RuntimeWords = runtimeWords({ locale: 'en' });
