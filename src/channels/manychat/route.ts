import { Hono, type Context } from 'hono';
import type { InboundMessage } from '../../../core/inbound-message.js';
import { localeOf } from '../../../core/runtime-words.js';
import { tenantWords } from '../../../core/tenant/tenant-words.js';
import { answerConfirmation } from '../../approvals/answer-confirmation.js';
import { jsonError } from '../../http/errors.js';
import { limitBody } from '../../http/middleware/body-limit.js';
import { storageUnavailable } from '../../http/middleware/tenant.js';
import { toDynamicBlock } from './dynamic-block.js';
import { contactChannel, type ContactChannel } from './contact-channel.js';
import { attachmentsOfInput } from './no-text-reply.js';
import type { ManyChatWebhook } from './inbound-schema.js';
import { manyChatMessageKey } from './message-key.js';
import { authenticateManyChatWebhook, type ManyChatContext } from './webhook-auth.js';
import { currentTenant, runManyChatTurn } from './run-manychat-turn.js';
import { isStorageFailure } from '../../http/storage-failure.js';

export const MANYCHAT_BODY_LIMIT = 64 * 1024;

/**
 * `POST /v1/manychat/:tenant` — ManyChat External Request / Dynamic Block. A confirmation's
 * Yes/No is answered without the model; a message (or a pressed suggestion) runs a turn.
 */
export function manyChatRoutes() {
  const app = new Hono<ManyChatContext>();
  app.post('/:tenant', limitBody(MANYCHAT_BODY_LIMIT), authenticateManyChatWebhook(), async (c) => {
    const auth = c.get('auth');
    const webhook = c.get('webhook');
    // A suspension the isolate remembers may have been lifted since (or the tenant deleted, or its
    // secret rotated): read the tenant again and authenticate against it before answering. So is
    // a confirmation press answered from memory: it commits with no claim (whose round trip checks
    // a message's cached tenant), and the tenant may have been suspended since.
    const confirmPress = auth.via === 'callback' && auth.claim.kind === 'confirm';
    if (
      (c.get('tenant').meta.status === 'suspended' || confirmPress) &&
      c.get('tenantFromCache') &&
      !c.get('storageDown')
    ) {
      const current = await currentTenant(c);
      if (!current.ok) return current.response;
    }
    const { config, meta } = c.get('tenant');
    const cc = contactChannel(webhook);
    c.header('x-manychat-channel', cc.channel);
    if (cc.from === 'unknown')
      console.warn(
        `ManyChat webhook for tenant ${config.tenantId}: the contact's channel cannot be told (no "channel" in the request template, no channel fields in Full Contact Data); answered in the Facebook format`,
      );
    const words = tenantWords(config, contactLanguage(webhook));
    if (meta.status === 'suspended') {
      // An operator suspended the tenant: a polite answer, no model call, nothing staged or performed.
      c.header('x-tenant-suspended', '1');
      return c.json(toDynamicBlock({ text: words.say('suspended') }, [], cc.channel));
    }
    const services = c.get('services');
    const session = c.get('session');
    let text: string;
    let messageKey: string;
    let attachments: NonNullable<InboundMessage['attachments']> = [];
    if (auth.via === 'callback' && auth.claim.kind === 'confirm') {
      if (c.get('storageDown')) return storageUnavailable(c);
      const answer = await answerConfirmation(
        {
          session,
          publisher: services.publisher(),
          pinSecret: services.env.SESSION_SECRET,
          now: new Date(),
          config,
          words: (locale) => tenantWords(config, locale ?? contactLanguage(webhook)),
        },
        auth.claim,
      );
      c.header('x-confirmation-outcome', answer.outcome);
      // The row remembers the channel it was asked on (signed); the press's own word only for older rows.
      return c.json(toDynamicBlock({ text: answer.text }, [], answer.surface ?? cc.channel));
    }
    if (auth.via === 'callback' && auth.claim.kind === 'suggest') {
      // A suggestion: its caption is the contact's next message; the button's nonce makes every
      // press of it (and ManyChat's retries) one delivery.
      text = auth.claim.text;
      messageKey = `qr:${auth.claim.nonce}`;
    } else {
      text = webhook.text ?? webhook.contact.last_input_text ?? '';
      attachments = webhook.attachments ?? attachmentsOfInput(text);
      // An attachment ManyChat passed as a bare media URL is described to the model, not read as words.
      if (!webhook.attachments && attachments.length) text = '';
      if (!text.trim() && !attachments.length) {
        // A photo, sticker, story reply or voice note ManyChat sent no text or URL for: a polite
        // answer in the tenant's language, no model call, nothing staged.
        c.header('x-no-text', '1');
        return c.json(toDynamicBlock({ text: words.say('noText') }, [], cc.channel));
      }
      messageKey = await manyChatMessageKey(
        webhook,
        text || attachments.map((a) => a.url ?? a.type).join('\n'),
        new Date(),
        cc,
      );
    }
    const inbound = inboundOf(config.tenantId, webhook, text, messageKey, cc, attachments);
    if (c.get('storageDown')) return keepThroughOutage(c, inbound);
    try {
      return await runManyChatTurn(c, inbound);
    } catch (err) {
      // Redis stopped answering mid-request (the turn itself turns its own failures into an
      // answer). Keep the message; if it was claimed already, the sweep of open claims finishes it.
      if (!isStorageFailure(err)) throw err;
      console.warn(
        `ManyChat webhook: storage failed mid-request (${err instanceof Error ? err.name : 'Error'}); keeping the message`,
      );
      return keepThroughOutage(c, inbound);
    }
  });
  return app;
}

/**
 * Redis does not answer, but the isolate knew the tenant and the request authenticated: the
 * message is handed to QStash (an inbound retry, run once when Redis is back, its reply through
 * the outbox) and the contact gets the holding reply now. If QStash refuses too, a clear 503.
 */
async function keepThroughOutage(c: Context<ManyChatContext>, inbound: InboundMessage): Promise<Response> {
  try {
    await c.get('services').inboundRetries().publishInboundRetry({ inbound });
  } catch (err) {
    console.error(
      `inbound retry for tenant ${inbound.tenantId} could not be published: ${err instanceof Error ? err.name : 'Error'}`,
    );
    c.header('Retry-After', '30');
    return jsonError(c, 503, 'storage is unavailable and the message could not be kept; retry later');
  }
  c.header('x-turn-deferred', '1');
  c.header('x-storage-down', '1');
  return c.json(
    toDynamicBlock(
      { text: tenantWords(c.get('tenant').config, inbound.contact.language).say('holdingReply') },
      [],
      inbound.surface,
    ),
  );
}

/** The contact's language as ManyChat gives it: the first of `language` and `locale` the runtime speaks. */
function contactLanguage(webhook: ManyChatWebhook): string | undefined {
  const { language, locale } = webhook.contact;
  return [language, locale].find((l) => localeOf(l)) ?? language ?? locale ?? undefined;
}

/** ManyChat's Full Contact Data as the turn's one inbound vocabulary. */
function inboundOf(
  tenantId: string,
  webhook: ManyChatWebhook,
  text: string,
  messageKey: string,
  cc: ContactChannel,
  attachments: NonNullable<InboundMessage['attachments']>,
): InboundMessage {
  const contact = webhook.contact;
  const name = contact.name ?? ([contact.first_name, contact.last_name].filter(Boolean).join(' ') || undefined);
  const language = contactLanguage(webhook);
  return {
    tenantId,
    channel: 'manychat',
    surface: cc.channel,
    contactId: contact.id,
    messageKey,
    text,
    ...(attachments.length ? { attachments } : {}),
    // The channel's own last-interaction time: the delivery key and the messaging window use it.
    contact: {
      ...(name ? { name } : {}),
      fields: contact.custom_fields ?? {},
      ...(cc.lastInteraction ? { lastInteraction: cc.lastInteraction } : {}),
      ...(language ? { language } : {}),
    },
    receivedAt: new Date().toISOString(),
  };
}
