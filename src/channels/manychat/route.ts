import { Hono, type Context } from 'hono';
import type { InboundMessage } from '../../../core/inbound-message.js';
import { tenantWords } from '../../../core/tenant/tenant-words.js';
import { answerConfirmation } from '../../approvals/answer-confirmation.js';
import { jsonError } from '../../http/errors.js';
import { limitBody } from '../../http/middleware/body-limit.js';
import { storageUnavailable } from '../../http/middleware/tenant.js';
import { toDynamicBlock } from './dynamic-block.js';
import { contactChannel } from './contact-channel.js';
import { warnUnknownChannel } from './unknown-channel-warning.js';
import { contactLanguage, inboundOf, manyChatMessageOf } from './inbound-of.js';
import { keepThroughOutage } from './keep-through-outage.js';
import { authenticateManyChatWebhook, type ManyChatContext } from './webhook-auth.js';
import { currentTenant, runManyChatTurn } from './run-manychat-turn.js';
import { isStorageFailure } from '../../http/storage-failure.js';
import { sessionSecrets } from '../../env.js';

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
    if (cc.from === 'unknown') warnUnknownChannel(config);
    const words = tenantWords(config, contactLanguage(webhook));
    if (meta.status === 'suspended') {
      // An operator suspended the tenant: a polite answer, no model call, nothing staged or performed.
      c.header('x-tenant-suspended', '1');
      return c.json(toDynamicBlock({ text: words.say('suspended') }, [], cc.channel));
    }
    const services = c.get('services');
    const session = c.get('session');
    if (auth.via === 'callback' && auth.claim.kind === 'confirm') {
      if (c.get('storageDown')) return storageUnavailable(c);
      const answer = await answerConfirmation(
        {
          session,
          publisher: services.publisher(),
          pinSecret: sessionSecrets(services.env),
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
    const message = await manyChatMessageOf(
      webhook,
      auth.via === 'callback' && auth.claim.kind === 'suggest' ? auth.claim : null,
      cc,
    );
    if (message.kind === 'no-text') {
      // A photo, sticker, story reply or voice note ManyChat sent no text or URL for: a polite
      // answer in the tenant's language, no model call, nothing staged.
      c.header('x-no-text', '1');
      return c.json(toDynamicBlock({ text: words.say('noText') }, [], cc.channel));
    }
    const { text, messageKey, attachments } = message;
    const inbound = inboundOf(config.tenantId, webhook, text, messageKey, cc, attachments);
    if (c.get('storageDown')) return keepThroughOutage(c, { inbound }, words.say('holdingReply'));
    try {
      return await runManyChatTurn(c, inbound);
    } catch (err) {
      // Redis stopped answering mid-request (the turn itself turns its own failures into an
      // answer). Keep the message; if it was claimed already, the sweep of open claims finishes it.
      if (!isStorageFailure(err)) throw err;
      console.warn(
        `ManyChat webhook: storage failed mid-request (${err instanceof Error ? err.name : 'Error'}); keeping the message`,
      );
      return keepThroughOutage(c, { inbound }, words.say('holdingReply'));
    }
  });
  return app;
}
