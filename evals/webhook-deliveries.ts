import type { CaseTurn } from './case-format.js';
import { buttonsOf } from './manychat-calls.js';
import type { DeliveryView } from './observed.js';
import type { IssuedButton } from './turn-observation.js';

/** Sending a turn's deliveries to the Worker's ManyChat webhook, as ManyChat would, and reading the answers. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WebhookAnswer extends DeliveryView {
  /** The answer's buttons (Dynamic Block v2 quick replies, or buttons on its text messages). */
  buttons: IssuedButton[];
  /** The parsed answer, for checking it against the channel's rules. */
  raw?: unknown;
}

/** The body ManyChat's External Request posts for a message (the request template's shape). */
export function messageBody(
  turn: CaseTurn,
  contactId: string,
  messageKey: string | null,
  lastInteraction: string | undefined,
  channel: 'facebook' | 'instagram' | 'whatsapp' | 'telegram' = 'facebook',
): Record<string, unknown> {
  if (channel !== 'facebook') {
    // The walkthrough's template: Full Contact Data with the channel's own fields (the text only in
    // last_input_text); Instagram and WhatsApp are told from those fields, Telegram by the template's "channel".
    const at = lastInteraction ?? new Date().toISOString();
    const own =
      channel === 'instagram'
        ? {
            ig_id: Number(contactId.slice(-9)),
            ig_username: `eval_${contactId}`,
            ig_last_interaction: at,
            whatsapp_phone: null,
          }
        : channel === 'whatsapp'
          ? { ig_id: null, whatsapp_phone: `+1555${contactId.slice(-7)}`, last_interaction: at }
          : { last_interaction: at };
    const contact = {
      id: contactId,
      first_name: turn.firstName,
      last_name: 'Eval',
      last_input_text: turn.text,
      ...(turn.customFields ? { custom_fields: turn.customFields } : {}),
      ...own,
    };
    return {
      ...(channel === 'telegram' ? { channel } : {}),
      contact,
      ...(messageKey ? { message_key: messageKey } : {}),
    };
  }
  const contact: Record<string, unknown> = {
    id: contactId,
    first_name: turn.firstName,
    last_name: 'Eval',
    ...(turn.customFields ? { custom_fields: turn.customFields } : {}),
    ...(lastInteraction ? { last_interaction: lastInteraction } : {}),
  };
  if (turn.body === 'bare') return { ...contact, last_input_text: turn.text };
  return { contact, text: turn.text, ...(messageKey ? { message_key: messageKey } : {}) };
}

/** One POST to the webhook; never throws (a network error is a delivery with status 0). */
export async function postWebhook(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<WebhookAnswer> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let replyText: string | null = null;
    let buttons: IssuedButton[] = [];
    let raw: unknown;
    try {
      const json = JSON.parse(text) as { content?: { messages?: { text?: string }[] } };
      raw = json;
      replyText = (json.content?.messages ?? []).map((m) => m.text ?? '').join('\n');
      buttons = buttonsOf(json.content);
    } catch {
      replyText = null;
    }
    return {
      status: res.status,
      ms,
      turnId: res.headers.get('x-turn-id'),
      duplicateOf: res.headers.get('x-duplicate-of'),
      deferred: res.headers.get('x-turn-deferred') === '1',
      outcome: res.headers.get('x-confirmation-outcome'),
      replyText,
      buttons,
      raw,
      ...(res.status >= 400 ? { error: text.slice(0, 300) } : {}),
    };
  } catch (err) {
    return {
      status: 0,
      ms: performance.now() - started,
      turnId: null,
      duplicateOf: null,
      deferred: false,
      replyText: null,
      buttons: [],
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    };
  }
}

/** Sends the same delivery `count` times: one after another (with a gap) or all at once. */
export async function repeatDelivery<T>(spec: CaseTurn['deliveries'], send: () => Promise<T>): Promise<T[]> {
  if (spec.mode === 'concurrent') return Promise.all(Array.from({ length: spec.count }, send));
  const out: T[] = [];
  for (let i = 0; i < spec.count; i++) {
    if (i > 0 && spec.gapMs) await sleep(spec.gapMs);
    out.push(await send());
  }
  return out;
}
