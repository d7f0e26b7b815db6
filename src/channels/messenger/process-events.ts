import type { LoadedTenant, Services } from '../../http/app-context.js';
import { isStorageFailure } from '../../http/storage-failure.js';
import type { MessengerEvent } from './read-events.js';
import { runMessengerTurn } from './run-messenger-turn.js';

type MessageEvent = Extract<MessengerEvent, { kind: 'message' }>;

/**
 * One webhook's messages, after the 200: each contact's in the order they acted (a message's turn
 * commits before the contact's next one starts, so the next sees it in its history and its reply
 * is queued after), different contacts side by side. Meta has been answered, so nothing may be
 * lost here: a message whose turn fails on storage (Redis answered the tenant lookup, then not) is
 * kept as a QStash inbound retry — run once when Redis answers; if it had been claimed after all,
 * the retry joins that claim and the cron finishes the turn. Any other failure is logged per
 * contact (ids only) and never stops the others; a claimed turn that did not commit is finished
 * by the cron.
 */
export async function processMessengerEvents(
  services: Services,
  tenant: Pick<LoadedTenant, 'config' | 'secrets' | 'meta'>,
  events: readonly MessageEvent[],
): Promise<void> {
  const { config, secrets } = tenant;
  const byContact = new Map<string, MessageEvent[]>();
  for (const e of events) byContact.set(e.inbound.contactId, [...(byContact.get(e.inbound.contactId) ?? []), e]);
  await Promise.all(
    [...byContact.values()].map(async (contactEvents) => {
      for (const e of contactEvents) {
        try {
          const outcome = await runMessengerTurn(services, config, secrets, e.inbound, tenant.meta.status);
          if (outcome.kind === 'rate-limited')
            console.warn(
              `Messenger: tenant ${config.tenantId}: a message over the ${outcome.scope} rate limit got the polite reply, no turn`,
            );
        } catch (err) {
          if (isStorageFailure(err)) await keepForRetry(services, config.tenantId, e);
          else
            console.error(
              `Messenger: tenant ${config.tenantId}: an event failed (${err instanceof Error ? err.name : 'Error'}); a claimed turn is finished by the cron`,
            );
        }
      }
    }),
  );
}

async function keepForRetry(services: Services, tenantId: string, e: MessageEvent): Promise<void> {
  try {
    await services.inboundRetries().publishInboundRetry({ inbound: e.inbound });
    console.warn(
      `Messenger: tenant ${tenantId}: storage failed after the answer; the message is kept as an inbound retry`,
    );
  } catch (err) {
    // Redis and QStash both failed after Meta was answered: the one loss this design cannot prevent; said loudly.
    console.error(
      `Messenger: tenant ${tenantId}: storage failed and the inbound retry could not be published (${err instanceof Error ? err.name : 'Error'}); message ${e.inbound.messageKey.slice(0, 60)} is lost`,
    );
  }
}
