import type { LoadedTenant, Services } from '../../http/app-context.js';
import { answerMessengerPress } from './answer-press.js';
import type { MessengerEvent } from './read-events.js';
import { runMessengerTurn } from './run-messenger-turn.js';

/**
 * One webhook's events, after the 200: each contact's in the order they acted (a message's turn
 * commits before the contact's next one starts, so the next sees it in its history and its reply
 * is queued after), different contacts side by side. A failure is logged per contact (ids only)
 * and never stops the others; a claimed turn that did not commit is finished by the cron.
 */
export async function processMessengerEvents(services: Services, tenant: Pick<LoadedTenant, 'config' | 'secrets' | 'meta'>, events: MessengerEvent[]): Promise<void> {
  const { config, secrets } = tenant;
  const byContact = new Map<string, Exclude<MessengerEvent, { kind: 'ignored' }>[]>();
  for (const e of events) {
    if (e.kind === 'ignored') continue;
    const contactId = e.kind === 'message' ? e.inbound.contactId : e.contactId;
    byContact.set(contactId, [...(byContact.get(contactId) ?? []), e]);
  }
  await Promise.all(
    [...byContact.values()].map(async (contactEvents) => {
      for (const e of contactEvents) {
        try {
          if (e.kind === 'message') {
            const outcome = await runMessengerTurn(services, config, secrets, e.inbound, tenant.meta.status);
            if (outcome.kind === 'rate-limited') console.warn(`Messenger: tenant ${config.tenantId}: a message over the ${outcome.scope} rate limit got the polite reply, no turn`);
          } else {
            const outcome = await answerMessengerPress(services, config, e);
            if (outcome === 'forged') console.warn(`Messenger: tenant ${config.tenantId}: a confirmation payload that does not verify was ignored`);
          }
        } catch (err) {
          console.error(`Messenger: tenant ${config.tenantId}: an event failed (${err instanceof Error ? err.name : 'Error'}); a claimed turn is finished by the cron`);
        }
      }
    }),
  );
}
