import { buildOutboxEntry } from '../../core/outbox-entry.js';
import type { StagedAction } from '../../core/staged-action.js';
import { ConditionalWrites } from '../../core/storage/conditional-writes.js';
import { TTL } from '../../core/storage/keys.js';
import { alertMarkerKeys } from '../../core/storage/alert-markers.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { sha256Hex } from '../../core/security/digest.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { DeadLetter } from '../../outbox/dead-letters.js';
import { MANYCHAT_KEY_ALERT_ITEM, type DeliveryResult } from '../../outbox/deliver-entry.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { slackEscape as escapeSlack, slackLink } from './slack-text.js';
import { notificationTarget } from './notification-target.js';
import { outboxDueAt, queueDue } from '../../core/storage/due-index.js';
import { queueOutboxEntry } from '../../core/storage/outbox-store.js';

/**
 * Alerts: what went wrong at delivery, told to the tenant's notification channel (config
 * `notifications.approvals`, the channel approvals and handoffs use: a signed Standard Webhooks
 * POST, or Slack) — a dead or unknown letter, and the ManyChat key refused (401/403).
 *
 * At most once an item: a `SET NX` marker per item (with a TTL) guards the write of the alert's
 * own outbox entry, in one script, so a dead letter listed, delivered or re-driven again, or a
 * key refused on every delivery of an outage, is told once. The alert itself goes through the
 * outbox like every notification (committed, then QStash delivers and retries it), never inline.
 * A notification that dies is not alerted of: it would go to the very endpoint that refused it.
 */

/** A dead letter's marker lives as long as the entry it names could die again (the outbox TTL). */
const DEAD_LETTER_MARKER_SECONDS = TTL.outboxSeconds;
/**
 * The key's marker ends with the outage (a delivery the key gets through deletes it); this TTL is
 * the backstop, so an outage nobody fixed is told again after a week rather than never.
 */
const KEY_MARKER_SECONDS = 7 * 24 * 3600;

export interface AlertItem {
  /** What the alert is about, once: the marker's name. */
  itemId: string;
  markerSeconds: number;
  /** The entry's contact (a dead letter's; a tenant-wide alert names none). */
  contactId: string;
  event: { type: string } & Record<string, unknown>;
  /** Slack's text, every part already escaped. */
  slack: string;
}

function base(publicUrl: string): string {
  return publicUrl.replace(/\/$/, '');
}

/** A dead or unknown letter; null for a notification's own (see above). */
export async function deadLetterAlert(letter: DeadLetter, publicUrl: string): Promise<AlertItem | null> {
  if (letter.kind === 'notify_webhook') return null;
  const entryId = letter.entryId ?? letter.turnId;
  const turn = `${base(publicUrl)}/dashboard/turns/${encodeURIComponent(letter.turnId)}`;
  const event = {
    type: letter.state === 'dead' ? 'delivery.dead' : 'delivery.unknown',
    tenantId: letter.tenantId,
    turnId: letter.turnId,
    entryId,
    actionId: letter.actionId,
    contactId: letter.contactId,
    kind: letter.kind,
    summary: letter.summary,
    detail: letter.detail.slice(0, 500),
    at: letter.at,
    turn,
    // POST with the tenant's admin secret (Authorization: Bearer), body {entryId, actionId}.
    redrive: `${base(publicUrl)}/v1/outbox/dead-letters/${letter.tenantId}/redrive`,
  };
  const what = letter.state === 'dead' ? 'was refused and not performed' : 'may or may not have been performed';
  return {
    itemId: `dl.${(await sha256Hex(`${entryId}\n${letter.actionId}`)).slice(0, 40)}`,
    markerSeconds: DEAD_LETTER_MARKER_SECONDS,
    contactId: letter.contactId,
    event,
    slack: `Delivery failed (${escapeSlack(letter.tenantId)}): ${escapeSlack(letter.summary)} ${what} — ${escapeSlack(event.detail)}. ${slackLink(turn, 'Open the turn')}`,
  };
}

/** ManyChat refused the tenant's key: nothing that needs ManyChat is delivered until it is fixed. */
export function keyRefusedAlert(tenantId: string, publicUrl: string, at: Date): AlertItem {
  const setup = `${base(publicUrl)}/dashboard/setup`;
  return {
    itemId: MANYCHAT_KEY_ALERT_ITEM,
    markerSeconds: KEY_MARKER_SECONDS,
    contactId: '-',
    event: { type: 'manychat.key_refused', tenantId, at: at.toISOString(), setup },
    slack: `ManyChat key refused (${escapeSlack(tenantId)}): ManyChat answered 401/403 with the saved API key, so flows, tags and fields are not delivered. ${slackLink(setup, 'Check the key in Setup')}`,
  };
}

/** The alerts one delivery gives rise to. */
export async function deliveryAlerts(
  tenantId: string,
  result: Pick<DeliveryResult, 'failures' | 'keyRefused'>,
  publicUrl: string,
  now: Date,
): Promise<AlertItem[]> {
  const items: AlertItem[] = [];
  if (result.keyRefused) items.push(keyRefusedAlert(tenantId, publicUrl, now));
  for (const letter of result.failures ?? []) {
    const item = await deadLetterAlert(letter, publicUrl);
    if (item) items.push(item);
  }
  return items;
}

/**
 * Commits each item's alert entry unless its marker is set (marker and entry in one script), and
 * hands the new ones to QStash. Answers the entry ids committed now. A publish that fails is not
 * thrown: the entry is in the pending set and the sweeper publishes it.
 */
export async function sendAlerts(input: {
  session: RedisSession;
  publisher: OutboxPublisher;
  config: Pick<TenantConfig, 'tenantId' | 'notifications' | 'retentionDays'>;
  items: readonly AlertItem[];
  now?: Date;
}): Promise<string[]> {
  const target = notificationTarget(input.config);
  if (!target || !input.items.length) return [];
  const now = input.now ?? new Date();
  const markers = alertMarkerKeys(input.config.tenantId);
  const committed: string[] = [];
  for (const item of input.items) {
    // Its own entry each time it is told (a re-alert after the marker expired must not find the last one's ledger done).
    const entryId = `alert-${(await sha256Hex(item.itemId)).slice(0, 32)}-${now.getTime().toString(36)}`;
    const body = target.format === 'slack' ? { text: item.slack, event: item.event } : item.event;
    const action: StagedAction = {
      id: `${entryId}.notify`,
      tool: 'system:alert',
      kind: 'notify_webhook',
      args: { ...target.args, body: JSON.stringify(body), webhookId: entryId, event: item.event.type },
      effect: 'write',
      idempotent: true,
      gate: 'none',
      summary: `notify ${target.shownAs} (${item.event.type})`,
    };
    const entry = buildOutboxEntry({
      entryId,
      tenantId: input.config.tenantId,
      channel: 'manychat',
      contactId: item.contactId,
      actions: [action],
      now,
      ...(input.config.retentionDays ? { retentionDays: input.config.retentionDays } : {}),
    });
    const marker = markers.marker(item.itemId);
    const w = new ConditionalWrites(marker);
    w.call('SET', marker, now.toISOString(), 'EX', item.markerSeconds);
    queueOutboxEntry(w, input.config.tenantId, entryId, entry, TTL.outboxSeconds, now.getTime());
    queueDue(w, input.config.tenantId, outboxDueAt(now.getTime()));
    const written = await input.session.one((r) => r.eval(w.script, w.keys, w.argv));
    if (Number(written) !== 1) continue;
    committed.push(entryId);
    await input.publisher
      .publish({ tenantId: input.config.tenantId, turnId: entryId })
      .catch((err: unknown) =>
        console.warn(`alerts: publish failed, the sweeper will (${err instanceof Error ? err.message : 'error'})`),
      );
  }
  return committed;
}

/** A delivery's alerts, sent; never fails the delivery it reports on (the ledger and dead letters hold the truth). */
export async function alertOfDelivery(input: {
  session: RedisSession;
  publisher: OutboxPublisher;
  config: Pick<TenantConfig, 'tenantId' | 'notifications' | 'retentionDays'>;
  result: Pick<DeliveryResult, 'failures' | 'keyRefused'>;
  publicUrl: string;
}): Promise<void> {
  if (!input.config.notifications.approvals || (!input.result.failures?.length && !input.result.keyRefused)) return;
  try {
    const now = new Date();
    const items = await deliveryAlerts(input.config.tenantId, input.result, input.publicUrl, now);
    await sendAlerts({ session: input.session, publisher: input.publisher, config: input.config, items, now });
  } catch (err) {
    console.warn(`alerts: not sent (${err instanceof Error ? err.message : 'error'})`);
  }
}
