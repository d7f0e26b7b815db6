import { localeOf } from '../../../core/runtime-words.js';
import { tenantWords } from '../../../core/tenant/tenant-words.js';
import type { Context } from 'hono';
import type { InboundMessage } from '../../../core/inbound-message.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { OutgoingReply } from '../../../core/turn-record.js';
import { jsonError } from '../../http/errors.js';
import { loadTenantFresh, secretMatches } from '../../http/middleware/tenant.js';
import type { AppContext } from '../../http/app-context.js';
import { waitUntilOf } from '../../http/wait-until.js';
import { releaseClaim } from '../../../core/storage/claims.js';
import { handleInbound, newTurnId } from '../../turn/handle-inbound.js';
import { startTurn } from '../../turn/start-turn.js';
import { turnDeps } from '../../turn/turn-deps.js';
import { toDynamicBlock } from './dynamic-block.js';
import { contactChannel } from './contact-channel.js';
import { signedQuickReplies } from './signed-quick-replies.js';
import { WEBHOOK_SECRET_HEADER, type ManyChatContext } from './webhook-auth.js';
import { ModelUnavailableError, modelAvailability } from '../../models/model-availability.js';
import { sessionSecrets } from '../../env.js';

/**
 * A message's turn behind the ManyChat webhook: one round trip to start it (rate limits, the
 * cached tenant's revision, the claim with history and handoff state), then the turn, answered
 * by the deadline. A cached tenant that turns out stale is read again and the request
 * authenticated against it before anything runs; a refusal gives the claim back.
 */
export async function runManyChatTurn(c: Context<ManyChatContext>, inbound: InboundMessage): Promise<Response> {
  const services = c.get('services');
  const session = c.get('session');
  // Refused before anything is claimed or counted, so the contact's message is not half-taken.
  if (modelAvailability(services.env).kind === 'none') throw new ModelUnavailableError();
  let { config } = c.get('tenant');
  const started = await startTurn(session, config, inbound, newTurnId());
  if (started.limited) {
    c.header('x-rate-limited', started.limited.scope);
    return c.json(
      toDynamicBlock({ text: tenantWords(config, inbound.contact.language).say('rateLimited') }, [], inbound.surface),
    );
  }
  // A revision that moved (or is gone: the tenant was deleted) means the cached tenant is stale.
  if (c.get('tenantFromCache') && started.storedRev !== c.get('tenantRev')) {
    const current = await currentTenant(c);
    if (!current.ok) {
      if (started.claim?.claimed) await releaseClaim(session, config.tenantId, started.digest, started.turnId);
      return current.response;
    }
    config = current.config;
  }
  const waitUntil = waitUntilOf(c);
  const outcome = await handleInbound(
    {
      ...turnDeps(services, session, config, c.get('tenant').meta.status, waitUntil),
      turnJobs: services.turnJobs(),
      waitUntil,
    },
    inbound,
    config,
    c.get('startedAt'),
    newTurnId,
    started.claim ? { turnId: started.turnId, claim: started.claim } : undefined,
  );
  if (outcome.kind === 'refused') {
    c.header('x-tenant-suspended', '1');
    return c.json(toDynamicBlock({ text: config.suspendedReply }));
  }
  const { reply, turnId } = replyOf(outcome);
  c.header('x-turn-id', turnId);
  if (outcome.kind === 'duplicate') c.header('x-duplicate-of', outcome.turnId);
  if (outcome.kind === 'deferred') c.header('x-turn-deferred', '1');
  return c.json(
    toDynamicBlock(
      reply,
      await signedQuickReplies(
        reply,
        callbackUrl(c.req.url),
        sessionSecrets(services.env),
        config.tenantId,
        inbound.contactId,
        inbound.surface,
      ),
      inbound.surface,
    ),
  );
}

/** The tenant as stored now, with the request authenticated against it (its secrets may have rotated). */
export async function currentTenant(
  c: Context<ManyChatContext>,
): Promise<{ ok: true; config: TenantConfig } | { ok: false; response: Response }> {
  const base = c as unknown as Context<AppContext>;
  const fresh = await loadTenantFresh(base, c.get('tenant').config.tenantId);
  const wrong = () => jsonError(c, 401, `wrong ${WEBHOOK_SECRET_HEADER} for this tenant`);
  if (fresh.kind !== 'found') return { ok: false, response: wrong() };
  const provided = c.req.header(WEBHOOK_SECRET_HEADER);
  if (
    c.get('auth').via === 'secret' &&
    !(provided !== undefined && (await secretMatches(base, provided, fresh.tenant.secrets.webhookSecret)))
  )
    return { ok: false, response: wrong() };
  if (fresh.tenant.meta.status === 'suspended') {
    c.header('x-tenant-suspended', '1');
    const { language, locale } = c.get('webhook').contact;
    return {
      ok: false,
      response: c.json(
        toDynamicBlock(
          {
            text: tenantWords(
              fresh.tenant.config,
              [language, locale].find((l) => localeOf(l)),
            ).say('suspended'),
          },
          [],
          contactChannel(c.get('webhook')).channel,
        ),
      ),
    };
  }
  c.set('tenant', fresh.tenant);
  return { ok: true, config: fresh.tenant.config };
}

/** Buttons post back to this webhook, without the query string. */
function callbackUrl(requestUrl: string): string {
  const url = new URL(requestUrl);
  url.search = '';
  return url.toString();
}

function replyOf(outcome: Exclude<Awaited<ReturnType<typeof handleInbound>>, { kind: 'refused' }>): {
  reply: OutgoingReply;
  turnId: string;
} {
  // A stored turn another run committed deferred (its reply goes through the outbox) is not repeated here.
  if (outcome.kind === 'turn')
    return {
      reply: outcome.record.deferred ? { text: '', quickReplies: [] } : outcome.record.reply,
      turnId: outcome.record.turnId,
    };
  return { reply: outcome.reply ?? { text: '', quickReplies: [] }, turnId: outcome.turnId };
}
