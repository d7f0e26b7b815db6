import { z } from 'zod';

/**
 * The channels one ManyChat account answers on, and what each accepts (docs/protocols.md,
 * "ManyChat on Instagram, WhatsApp and Telegram"). One table, read by the webhook's Dynamic Block,
 * the outbox's sendContent, the sandbox and the tests: a limit changes here or nowhere.
 */
/** A ManyChat `dynamic_block_callback` button: signed by the turn, passed through as it is. */
export interface ManyChatCallbackButton {
  type: 'dynamic_block_callback';
  caption: string;
  url: string;
  method: 'post';
  payload: Record<string, unknown>;
}

export const MANYCHAT_CHANNELS = ['facebook', 'instagram', 'whatsapp', 'telegram'] as const;
export const ManyChatChannelSchema = z.enum(MANYCHAT_CHANNELS);
export type ManyChatChannel = z.infer<typeof ManyChatChannelSchema>;

export interface ManyChatChannelLimits {
  /** `content.type` in a Dynamic Block and in sendContent; Facebook has none (and must send none). */
  contentType: 'instagram' | 'whatsapp' | 'telegram' | null;
  /** Message types ManyChat's response reference accepts on the channel. */
  messageTypes: readonly ('text' | 'image' | 'video' | 'audio' | 'file' | 'cards')[];
  /** `quick_replies` exist on the channel ("not supported for WhatsApp and Telegram"). */
  quickReplies: boolean;
  /**
   * Buttons on a text message. The channel reference lists url/flow/node; `dynamic_block_callback`
   * is documented for Facebook only and the channel pages are silent on it: we send it (the only way
   * a press can come back to us), at most three on a message, the smallest count any of the
   * channels' own platforms allow (WhatsApp reply buttons: 3; Messenger button template: 3).
   */
  maxButtonsPerMessage: number;
  /** Characters of one text message (UTF-16 units). ManyChat is silent; the platform's own limit. */
  maxTextChars: number;
  /** UTF-8 bytes of one text message where the platform counts bytes (Instagram: 1000); null: characters only. */
  maxTextBytes: number | null;
  /**
   * Characters of the text message that carries buttons, where the platform turns it into another
   * kind of message: WhatsApp's interactive reply-button message has a body of at most 1024. null: maxTextChars.
   */
  maxButtonTextChars: number | null;
  /** ManyChat's documented caps (every channel): 10 messages, 11 quick replies, 5 actions. */
  maxMessages: number;
  maxQuickReplies: number;
  /** Hours after the contact's last message in which an automated message may be sent; null: no window. */
  windowHours: number | null;
  /** What the channel calls the contact's last message time in Full Contact Data (the delivery key, the window). */
  lastInteractionField: string;
}

const COMMON = { maxMessages: 10, maxQuickReplies: 11, maxButtonsPerMessage: 3 } as const;

export const MANYCHAT_CHANNEL_LIMITS: Record<ManyChatChannel, ManyChatChannelLimits> = {
  // Messenger: text up to 2000 characters (Send API); the 24 h window, message tags past it (ManyChat code 3011).
  facebook: {
    ...COMMON,
    contentType: null,
    messageTypes: ['text', 'image', 'video', 'audio', 'file', 'cards'],
    quickReplies: true,
    maxTextChars: 2000,
    maxTextBytes: null,
    maxButtonTextChars: null,
    windowHours: 24,
    lastInteractionField: 'last_interaction',
  },
  // Instagram messaging: Meta's send-message page says both "less than 1000 characters" and "UTF-8
  // and … 1000 bytes or less": both hold (999 characters, 1000 bytes), so a German or emoji reply is
  // split by bytes. No video, audio or file in ManyChat; 24 h window (the human-agent tag reaches
  // 7 days for a person's own replies only, never automation).
  instagram: {
    ...COMMON,
    contentType: 'instagram',
    messageTypes: ['text', 'image', 'cards'],
    quickReplies: true,
    maxTextChars: 999,
    maxTextBytes: 1000,
    maxButtonTextChars: null,
    windowHours: 24,
    lastInteractionField: 'ig_last_interaction',
  },
  // WhatsApp: text body up to 4096 characters, 1024 on a message with reply buttons (an interactive
  // message); no video, audio, file or gallery in ManyChat; outside the 24 h session only an approved
  // template may be sent (the product sends none).
  whatsapp: {
    ...COMMON,
    contentType: 'whatsapp',
    messageTypes: ['text'],
    quickReplies: false,
    maxTextChars: 4096,
    maxTextBytes: null,
    maxButtonTextChars: 1024,
    windowHours: 24,
    lastInteractionField: 'last_interaction',
  },
  // Telegram: text up to 4096 characters; no gallery; a bot may write to a contact who started it, no window.
  telegram: {
    ...COMMON,
    contentType: 'telegram',
    messageTypes: ['text', 'image', 'video', 'audio', 'file'],
    quickReplies: false,
    maxTextChars: 4096,
    maxTextBytes: null,
    maxButtonTextChars: null,
    windowHours: null,
    lastInteractionField: 'last_interaction',
  },
};

/** A v2 `content` for one channel: text messages, the channel's `type`, buttons where they can be pressed. */
export interface ManyChatContent {
  type?: 'instagram' | 'whatsapp' | 'telegram';
  messages: { type: 'text'; text: string; buttons?: ManyChatCallbackButton[] }[];
  actions: never[];
  quick_replies?: ManyChatCallbackButton[];
}

/**
 * A reply's text and signed buttons as the channel accepts them. Quick replies where the channel has
 * them; on WhatsApp and Telegram the same signed buttons ride on the last text message, at most
 * three: a confirmation's Yes/No (listed first by the turn) always fit, suggestions past three are
 * left off. Text longer than the channel's limit is split at a space into several messages.
 */
export function renderManyChatContent(
  channel: ManyChatChannel,
  text: string,
  buttons: readonly ManyChatCallbackButton[] = [],
): ManyChatContent {
  const limits = MANYCHAT_CHANNEL_LIMITS[channel];
  let chunks = splitText(text, limits.maxTextChars, limits.maxTextBytes);
  const onText = !limits.quickReplies && buttons.length > 0;
  if (onText && limits.maxButtonTextChars !== null && chunks.length) {
    // The message the buttons ride on is split again to the smaller limit; the buttons go on its last part.
    const tail = splitText(chunks[chunks.length - 1]!, limits.maxButtonTextChars, limits.maxTextBytes);
    chunks = [...chunks.slice(0, -1), ...tail];
  }
  // Past ManyChat's 10 messages the end is kept when buttons ride on it (a Yes/No must stay pressable).
  chunks = onText ? chunks.slice(-limits.maxMessages) : chunks.slice(0, limits.maxMessages);
  const messages: ManyChatContent['messages'] = chunks.map((t) => ({ type: 'text', text: t }));
  const content: ManyChatContent = {
    ...(limits.contentType ? { type: limits.contentType } : {}),
    messages,
    actions: [],
  };
  if (limits.quickReplies) {
    content.quick_replies = buttons.slice(0, limits.maxQuickReplies);
    return content;
  }
  if (!buttons.length) return content;
  const onMessage = pressFirst(buttons).slice(0, limits.maxButtonsPerMessage);
  // A button needs a text message to ride on; a reply with buttons and no text never leaves the turn,
  // but if it did, the buttons' captions name themselves.
  if (!messages.length) messages.push({ type: 'text', text: onMessage.map((b) => b.caption).join(' / ') });
  messages[messages.length - 1] = { ...messages[messages.length - 1]!, buttons: onMessage };
  return content;
}

/** A confirmation's buttons before suggestions, so a cap never drops a Yes or a No. */
function pressFirst(buttons: readonly ManyChatCallbackButton[]): ManyChatCallbackButton[] {
  const isConfirm = (b: ManyChatCallbackButton) =>
    (b.payload.callback as { kind?: unknown } | undefined)?.kind === 'confirm';
  return [...buttons.filter(isConfirm), ...buttons.filter((b) => !isConfirm(b))];
}

const utf8 = new TextEncoder();
const utf8Bytes = (t: string): number => utf8.encode(t).length;

/** The longest prefix of `rest` within both limits, never ending in half a surrogate pair (half an emoji). */
function longestFit(rest: string, maxChars: number, maxBytes: number | null): number {
  let n = Math.min(rest.length, maxChars);
  if (maxBytes !== null && utf8Bytes(rest.slice(0, n)) > maxBytes) {
    // Bytes grow with the prefix: the longest prefix within maxBytes by bisection.
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (utf8Bytes(rest.slice(0, mid)) <= maxBytes) lo = mid;
      else hi = mid - 1;
    }
    n = lo;
  }
  const last = rest.charCodeAt(n - 1);
  if (n < rest.length && last >= 0xd800 && last <= 0xdbff) n -= 1;
  return Math.max(n, 1);
}

function splitText(text: string, maxChars: number, maxBytes: number | null): string[] {
  if (!text) return [];
  const fits = (t: string) => t.length <= maxChars && (maxBytes === null || utf8Bytes(t) <= maxBytes);
  const out: string[] = [];
  let rest = text;
  while (!fits(rest)) {
    const max = longestFit(rest, maxChars, maxBytes);
    const cut = rest.lastIndexOf(' ', max);
    const at = cut > max / 2 ? cut : max;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) out.push(rest);
  return out;
}

export type WindowVerdict = { ok: true } | { ok: false; why: string };

/**
 * May an automated message go to this contact now? Judged from the contact's last message on the
 * channel. Facebook keeps ManyChat's own rule (a message tag past 24 h, refused with code 3011 when
 * missing), so it is not judged here. Instagram and WhatsApp: nothing automated after 24 h (no tag
 * makes automation legal on Instagram; WhatsApp needs an approved template, which the product never
 * sends). An unreadable time fails closed; an unknown one leaves it to ManyChat.
 */
export function manyChatWindow(
  channel: ManyChatChannel,
  lastInboundAt: string | undefined,
  nowMs: number,
): WindowVerdict {
  const hours = MANYCHAT_CHANNEL_LIMITS[channel].windowHours;
  if (channel === 'facebook' || hours === null || lastInboundAt === undefined) return { ok: true };
  const at = Date.parse(lastInboundAt);
  if (Number.isNaN(at))
    return {
      ok: false,
      why: `the contact's last message time "${lastInboundAt.slice(0, 40)}" is not readable; not sent (fail closed)`,
    };
  const ageHours = (nowMs - at) / 3600_000;
  if (ageHours <= hours) return { ok: true };
  const since = `${Math.floor(ageHours)} h since the contact's last message`;
  if (channel === 'whatsapp')
    return {
      ok: false,
      why: `outside WhatsApp's 24-hour session (${since}): only an approved message template may be sent, and this is not one; not sent`,
    };
  return {
    ok: false,
    why: `outside Instagram's 24-hour window (${since}): the human-agent tag covers a person's own replies only, never automated messages; not sent`,
  };
}
