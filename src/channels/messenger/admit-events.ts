import type { LoadedTenant, Services } from '../../http/app-context.js';
import { isStorageFailure } from '../../http/storage-failure.js';
import type { MessengerWebhook } from './events-schema.js';
import { answerMessengerPress } from './answer-press.js';
import { processMessengerEvents } from './process-events.js';
import { FOREIGN_PAGE, readEvents, type MessengerEvent } from './read-events.js';
import { replySuspended } from './system-reply.js';
import { endHandoff } from '../../tenants/end-handoff.js';

/** `handbacks` only when there were some (threads the inbox handed back: their silence ended). */
export type EventCounts = { messages: number; presses: number; ignored: number; handbacks?: number };

/**
 * What became of one tenant's share of a webhook, before Meta is answered:
 * - `accepted`: every event is claimed or will be (its work handed to `background`), or kept;
 * - `unavailable`: something could not be made safe (a press while Redis fails, a message that
 *   could be neither claimed nor kept): the webhook must answer 5xx so that Meta retries it —
 *   already-claimed messages of the retried batch join their first turns, a replayed press changes
 *   nothing.
 */
export type Admission =
  | { kind: 'accepted'; counts: EventCounts; suspended?: true; kept?: number; background: Promise<void> | null }
  | { kind: 'unavailable' };

/** The tenant's own pages: events for any other page are not processed (docs/messenger-pages.md). */
export function ownedPages(tenant: Pick<LoadedTenant, 'config'>): ReadonlySet<string> {
  return new Set(tenant.config.messenger.pages.map((p) => p.id));
}

/**
 * One tenant's events of a webhook whose signature verified with its app secret. Nothing is lost
 * once this answers `accepted`:
 * - a button press is answered now, before Meta's 200 (it needs no model and one or two round
 *   trips); if Redis fails, `unavailable` — Meta retries;
 * - messages run after the answer (processMessengerEvents): one whose claim fails on storage is
 *   kept as a QStash inbound retry there;
 * - while Redis is known down (the isolate's copy of the tenant), messages are kept as inbound
 *   retries now, and a press makes the batch `unavailable`.
 */
export async function admitTenantEvents(
  services: Services,
  tenant: LoadedTenant,
  webhook: MessengerWebhook,
  storageDown: boolean,
  receivedAt = new Date(),
): Promise<Admission> {
  const tenantId = tenant.config.tenantId;
  const events = readEvents(webhook, tenantId, receivedAt, ownedPages(tenant), tenant.config.messenger.appId);
  logIgnored(tenantId, events);
  const counts: EventCounts = { messages: 0, presses: 0, ignored: 0 };
  const handbacks = events.filter((e): e is Extract<MessengerEvent, { kind: 'handback' }> => e.kind === 'handback');
  for (const e of events)
    if (e.kind !== 'handback')
      counts[e.kind === 'message' ? 'messages' : e.kind === 'confirm' ? 'presses' : 'ignored']++;
  if (handbacks.length) {
    counts.handbacks = handbacks.length;
    // Before the answer, like a press: one DEL each; if Redis fails Meta retries (ending a silence twice is harmless).
    if (storageDown) return { kind: 'unavailable' };
    try {
      for (const h of handbacks) await endHandoff(services.redis(), tenantId, h.contactId, 'meta:handover');
    } catch (err) {
      if (!isStorageFailure(err)) throw err;
      console.warn(
        `Messenger: tenant ${tenantId}: a thread handed back could not end its silence (${err instanceof Error ? err.name : 'Error'}); Meta will retry the webhook`,
      );
      return { kind: 'unavailable' };
    }
  }
  if (tenant.meta.status === 'suspended') {
    // An operator suspended the tenant: acknowledged (Meta must not retry), no turn; each message
    // gets the tenant's polite suspendedReply through the outbox, nothing else is sent.
    return { kind: 'accepted', counts, suspended: true, background: replySuspended(services, tenant.config, events) };
  }
  const messages = events.filter((e): e is Extract<MessengerEvent, { kind: 'message' }> => e.kind === 'message');
  const presses = events.filter((e): e is Extract<MessengerEvent, { kind: 'confirm' }> => e.kind === 'confirm');
  if (storageDown) {
    if (presses.length) return { kind: 'unavailable' };
    try {
      const retries = services.inboundRetries();
      await Promise.all(messages.map((m) => retries.publishInboundRetry({ inbound: m.inbound })));
    } catch (err) {
      console.error(
        `Messenger: inbound retries for tenant ${tenantId} could not be published: ${err instanceof Error ? err.name : 'Error'}`,
      );
      return { kind: 'unavailable' };
    }
    return { kind: 'accepted', counts, kept: messages.length, background: null };
  }
  for (const press of presses) {
    try {
      const outcome = await answerMessengerPress(services, tenant.config, press);
      if (outcome === 'forged')
        console.warn(`Messenger: tenant ${tenantId}: a confirmation payload that does not verify was ignored`);
    } catch (err) {
      if (!isStorageFailure(err)) throw err;
      console.warn(
        `Messenger: tenant ${tenantId}: a button press could not be answered (${err instanceof Error ? err.name : 'Error'}); Meta will retry the webhook`,
      );
      return { kind: 'unavailable' };
    }
  }
  return {
    kind: 'accepted',
    counts,
    background: messages.length ? processMessengerEvents(services, tenant, messages) : null,
  };
}

/** Foreign pages and unreadable items, logged per tenant (ids only, never a contact's words). */
function logIgnored(tenantId: string, events: readonly MessengerEvent[]): void {
  const why = events.flatMap((e) => (e.kind === 'ignored' ? [e.why] : []));
  const foreign = why.filter((w) => w.startsWith(FOREIGN_PAGE));
  if (foreign.length)
    console.warn(`Messenger: tenant ${tenantId}: ${foreign.length} entr(y/ies) ignored, e.g. ${foreign[0]}`);
  const unreadable = why.filter((w) => w.startsWith('an item we cannot read'));
  if (unreadable.length)
    console.warn(`Messenger: tenant ${tenantId}: ${unreadable.length} item(s) skipped, e.g. ${unreadable[0]}`);
}
