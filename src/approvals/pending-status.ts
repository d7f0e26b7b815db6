import type { PinnedTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantLocale } from '../../core/tenant/tenant-config.js';

/**
 * What the contact is told about gated actions is the runtime's to say, not the model's: one line,
 * from the rows themselves, in the tenant's language, added after the model's text. It says what
 * waits and for whom — never that it happened. (The completion-claims guardrail vetoes a model
 * text that says otherwise.)
 */
const WORDS: Record<TenantLocale, { confirm: (what: string) => string; approval: (what: string) => string }> = {
  en: { confirm: (w) => `Please confirm with Yes or No: ${w}.`, approval: (w) => `A team member will review this before anything happens: ${w}.` },
  es: { confirm: (w) => `Confirma con Sí o No: ${w}.`, approval: (w) => `Una persona del equipo lo revisará antes de que ocurra nada: ${w}.` },
  de: { confirm: (w) => `Bitte bestätige mit Ja oder Nein: ${w}.`, approval: (w) => `Ein Teammitglied prüft das, bevor etwas passiert: ${w}.` },
  fr: { confirm: (w) => `Merci de confirmer par Oui ou Non : ${w}.`, approval: (w) => `Un membre de l'équipe vérifiera avant que quoi que ce soit ne se fasse : ${w}.` },
  pt: { confirm: (w) => `Confirme com Sim ou Não: ${w}.`, approval: (w) => `Alguém da equipe vai revisar antes de qualquer coisa acontecer: ${w}.` },
};

/** The status line for the rows a turn points the contact to; '' when nothing waits. */
export function pendingStatusLine(locale: TenantLocale, confirmation: PinnedTerms | null, approvals: readonly PinnedTerms[]): string {
  return statusLine(locale, confirmation?.actions ?? [], approvals.flatMap((a) => a.actions));
}

/**
 * The same line for gated actions not pinned yet (a shadow replay's, which writes no rows): the
 * confirm-gated ones ask for Yes or No, the approval-gated ones wait for a team member.
 */
export function stagedStatusLine(locale: TenantLocale, gated: readonly Pick<StagedAction, 'gate' | 'summary'>[]): string {
  return statusLine(locale, gated.filter((a) => a.gate === 'confirm'), gated.filter((a) => a.gate === 'approval'));
}

function statusLine(locale: TenantLocale, confirming: readonly { summary: string }[], waiting: readonly { summary: string }[]): string {
  const words = WORDS[locale];
  const lines: string[] = [];
  if (confirming.length) lines.push(words.confirm(confirming.map((a) => a.summary).join('; ')));
  if (waiting.length) lines.push(words.approval(waiting.map((a) => a.summary).join('; ')));
  return lines.join('\n');
}

/** The model's text with the status line after it, the model's part cut if both would not fit. */
export function withPendingStatus(text: string, status: string, maxChars: number): string {
  if (!status) return text;
  const room = maxChars - status.length - 2;
  const kept = text.length > room ? `${text.slice(0, Math.max(0, room - 1))}…` : text;
  return kept ? `${kept}\n\n${status}` : status;
}
