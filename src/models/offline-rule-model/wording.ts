import type { FlowConfig, TenantConfig } from '../../../core/tenant/tenant-config.js';

/** Contact-facing wording. Kept apart from the rules so the rules read as decisions only. */

/** A configured name as a person reads (and types) it: `price_list` → "price list". */
export function humanName(name: string): string {
  return name.replace(/_/g, ' ').trim();
}

const MAX_QUICK_REPLY = 20;
const MAX_QUICK_REPLIES = 3;

/** Quick-reply captions: human names that fit a button (≤20 chars), at most three, no repeats. */
export function quickReplies(names: readonly string[]): string[] {
  const captions = names.map(humanName).filter((n) => n.length > 0 && n.length <= MAX_QUICK_REPLY);
  return [...new Set(captions)].slice(0, MAX_QUICK_REPLIES);
}

/** "the product brochure" from "Product brochure"; a description that already has a determiner keeps it. */
export function withArticle(description: string): string {
  const text = description.trim().replace(/[.!]+$/, '');
  const lowered = /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
  return /^(the|a|an|our|my|your|this|these)\b/i.test(lowered) ? lowered : `the ${lowered}`;
}

/** Future tense on purpose: the flow is only staged; guardrails may still stop it. */
export function sendingFlowText(flow: FlowConfig): string {
  return `Sending you ${withArticle(flow.description)} now.`;
}

export function notingFieldText(fieldName: string, value: string | number | boolean): string {
  return `Got it, I'll note your ${humanName(fieldName)} as ${String(value)}.`;
}

type Tone = 'formal' | 'playful' | 'friendly';

/** The persona's tone, from a few telling words; "friendly" when it names none. */
export function personaTone(persona: string): Tone {
  const p = persona.toLowerCase();
  if (/\b(formal|professional|polite|courteous|business-like)\b/.test(p)) return 'formal';
  if (/\b(playful|fun|cheerful|enthusiastic|bubbly|emoji|emojis)\b/.test(p)) return 'playful';
  return 'friendly';
}

export function greetingOpener(config: TenantConfig): string {
  switch (personaTone(config.persona)) {
    case 'formal':
      return `Hello, and welcome to ${config.displayName}.`;
    case 'playful':
      return `Hey there! 👋 Welcome to ${config.displayName}!`;
    case 'friendly':
      return `Hi there! Welcome to ${config.displayName}.`;
  }
}

/** "a, b and c" */
export function listPhrase(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
