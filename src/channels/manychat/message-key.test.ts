import { describe, expect, it } from 'vitest';
import type { ManyChatWebhook } from './inbound-schema.js';
import { claimTtlSeconds, FALLBACK_KEY_WINDOW_SECONDS, manyChatMessageKey } from './message-key.js';
import { TTL } from '../../../core/storage/keys.js';

const minuteStart = Math.floor(Date.now() / 60_000) * 60_000;
const at = (offsetMs: number) => new Date(minuteStart + offsetMs);
const webhook = (contact: Partial<ManyChatWebhook['contact']> = {}, messageKey?: string): ManyChatWebhook => ({
  contact: { id: '1001', ...contact },
  ...(messageKey ? { message_key: messageKey } : {}),
});
const hex = async (s: string) =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)))]
    .slice(0, 16)
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');

describe('manyChatMessageKey: the delivery key, in order of precedence', () => {
  it("the template's own message_key wins, whatever else is there (with the message's digest)", async () => {
    expect(await manyChatMessageKey(webhook({ last_interaction: '2026-01-01T10:00:00Z' }, 'msg-42'), 'hi', at(0))).toBe(
      `k:msg-42:${await hex('hi')}`,
    );
  });

  it('else the contact id with its last_interaction time (with the message digest)', async () => {
    expect(await manyChatMessageKey(webhook({ last_interaction: '2026-01-01T10:00:00Z' }), 'hi', at(0))).toBe(
      `li:1001:2026-01-01T10:00:00Z:${await hex('hi')}`,
    );
  });

  it('else a hash of contact and text (SHA-256, first 16 bytes, hex): no wall-clock minute in it', async () => {
    const key = await manyChatMessageKey(webhook(), 'hi', at(1_000));
    expect(key).toBe(`h:${await hex('1001\nhi')}`);
  });

  it('a retry that crosses a minute boundary is the same delivery; other text or contact is another', async () => {
    const base = await manyChatMessageKey(webhook(), 'hi', at(59_000));
    expect(await manyChatMessageKey(webhook(), 'hi', at(61_000))).toBe(base);
    expect(await manyChatMessageKey(webhook(), 'hi!', at(59_000))).not.toBe(base);
    expect(await manyChatMessageKey(webhook({ id: '1002' }), 'hi', at(59_000))).not.toBe(base);
  });

  it('a duplicate is the same message: a repeated key (message_key or last_interaction) with other text is another delivery', async () => {
    for (const w of [webhook({}, 'msg-42'), webhook({ last_interaction: '2026-01-01T10:00:00Z' })]) {
      const first = await manyChatMessageKey(w, 'I prefer pilates', at(0));
      expect(await manyChatMessageKey(w, 'I prefer pilates', at(5_000))).toBe(first);
      expect(await manyChatMessageKey(w, 'Actually, cancel everything', at(5_000))).not.toBe(first);
    }
  });

  it('an empty last_interaction falls through to the hash; different kinds of key cannot collide (prefixes)', async () => {
    expect(await manyChatMessageKey(webhook({ last_interaction: '' }), 'hi', at(0))).toMatch(/^h:[0-9a-f]{32}$/);
    expect(await manyChatMessageKey(webhook({}, 'li:1001:x'), 'hi', at(0))).toMatch(/^k:li:1001:x:[0-9a-f]{32}$/);
  });
});

describe('claimTtlSeconds: how long a key makes later deliveries duplicates', () => {
  it('a fallback (contact + text) key holds for its window from the first delivery, not to a minute boundary; others for the claim TTL', async () => {
    expect(claimTtlSeconds(await manyChatMessageKey(webhook(), 'hi', at(0)))).toBe(FALLBACK_KEY_WINDOW_SECONDS);
    expect(FALLBACK_KEY_WINDOW_SECONDS).toBeGreaterThanOrEqual(60);
    expect(FALLBACK_KEY_WINDOW_SECONDS).toBeLessThan(TTL.claimSeconds);
    expect(claimTtlSeconds(await manyChatMessageKey(webhook({}, 'm1'), 'hi', at(0)))).toBe(TTL.claimSeconds);
    expect(claimTtlSeconds('mid.abc')).toBe(TTL.claimSeconds);
  });
});
