import { MANYCHAT_CHANNELS, type ManyChatChannel } from '../../../core/manychat-channels.js';
import type { RedisSession } from '../../../core/storage/redis-session.js';
import { loadTurnRecords, newestTurnIds } from '../../../core/storage/turn-records.js';
import type { TurnRecord } from '../../../core/turn-record.js';

/** How many of the newest turns the channels table reads (the log keeps 1,000; one page load, one MGET). */
export const USAGE_WINDOW = 500;

/** A channel the tenant's contacts write on: one of ManyChat's four, or Messenger connected directly. */
export type UsageChannel = ManyChatChannel | 'messenger';

export interface ChannelUsage {
  turns: number;
  contacts: number;
  /** The newest turn's start on this channel (ISO), or null when no contact has written there. */
  lastAt: string | null;
}

/** Counts turns, distinct contacts and the latest turn per channel; a ManyChat turn without a surface is Facebook (older records). */
export function channelUsageOf(turns: readonly Pick<TurnRecord, 'inbound' | 'contactId' | 'startedAt'>[]): {
  usage: Record<UsageChannel, ChannelUsage>;
  read: number;
} {
  const contacts = new Map<UsageChannel, Set<string>>();
  const usage = Object.fromEntries(
    [...MANYCHAT_CHANNELS, 'messenger'].map((ch) => [ch, { turns: 0, contacts: 0, lastAt: null }]),
  ) as Record<UsageChannel, ChannelUsage>;
  for (const t of turns) {
    const ch: UsageChannel = t.inbound.channel === 'messenger' ? 'messenger' : (t.inbound.surface ?? 'facebook');
    const row = usage[ch];
    row.turns += 1;
    const seen = contacts.get(ch) ?? new Set<string>();
    seen.add(t.contactId);
    contacts.set(ch, seen);
    row.contacts = seen.size;
    if (!row.lastAt || t.startedAt > row.lastAt) row.lastAt = t.startedAt;
  }
  return { usage, read: turns.length };
}

/** The tenant's own turn log only (its key prefix): another tenant's contacts are never counted. */
export async function loadChannelUsage(redis: RedisSession, tenantId: string) {
  const { ids } = await newestTurnIds(redis, tenantId, USAGE_WINDOW);
  return channelUsageOf(await loadTurnRecords(redis, tenantId, ids));
}
