import type { TenantLocale } from '../../../core/tenant/tenant-config.js';

/**
 * MANYCHAT_NO_TEXT_REPLY — the runtime's one polite answer to a ManyChat delivery with neither
 * text nor anything attached that we can describe (a sticker, a story reaction, a voice note
 * ManyChat passes no URL for): in the tenant's locale, no model call, nothing staged. Kept in this
 * one place for the runtime words catalogue to take over.
 */
export const MANYCHAT_NO_TEXT_REPLY: Record<TenantLocale, string> = {
  en: "Thanks! I can only read text messages here — could you write your question in words?",
  es: '¡Gracias! Aquí solo puedo leer mensajes de texto. ¿Puedes escribir tu pregunta con palabras?',
  de: 'Danke! Ich kann hier nur Textnachrichten lesen – kannst du deine Frage in Worten schreiben?',
  fr: 'Merci ! Je ne peux lire ici que des messages texte : pouvez-vous écrire votre question ?',
  pt: 'Obrigado! Aqui só consigo ler mensagens de texto. Pode escrever a sua pergunta?',
};

/** What a contact attached, told from what ManyChat sent (see docs/protocols.md): a lone https URL in last_input_text. */
export function attachmentsOfInput(text: string): { type: string; url: string }[] {
  const trimmed = text.trim();
  if (!/^https:\/\/\S+$/.test(trimmed) || trimmed.length > 2000) return [];
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return [];
  }
  // Only the platforms' own media hosts: a contact who pastes a link wrote a message, not an attachment.
  if (!/(^|\.)(fbsbx\.com|fbcdn\.net|cdninstagram\.com|whatsapp\.net|manychat\.com|telegram\.org)$/.test(url.hostname)) return [];
  const path = url.pathname.toLowerCase();
  const type = /\.(jpe?g|png|gif|webp|heic)$/.test(path) ? 'image' : /\.(mp4|mov|webm)$/.test(path) ? 'video' : /\.(mp3|m4a|ogg|oga|opus|aac|wav)$/.test(path) ? 'audio' : 'file';
  return [{ type, url: trimmed }];
}
