import { describe, expect, it } from 'vitest';
import type { ManyChatWebhook } from './inbound-schema.js';
import { manyChatMessageKey } from './message-key.js';

const minuteStart = Math.floor(Date.now() / 60_000) * 60_000;
const at = (offsetMs: number) => new Date(minuteStart + offsetMs);
const webhook = (contact: Partial<ManyChatWebhook['contact']> = {}, messageKey?: string): ManyChatWebhook => ({ contact: { id: '1001', ...contact }, ...(messageKey ? { message_key: messageKey } : {}) });

describe("manyChatMessageKey: the delivery key, in order of precedence", () => {
  it("the template's own message_key wins, whatever else is there", async () => {
    expect(await manyChatMessageKey(webhook({ last_interaction: '2026-01-01T10:00:00Z' }, 'msg-42'), 'hi', at(0))).toBe('k:msg-42');
  });

  it('else the contact id with its last_interaction time', async () => {
    expect(await manyChatMessageKey(webhook({ last_interaction: '2026-01-01T10:00:00Z' }), 'hi', at(0))).toBe('li:1001:2026-01-01T10:00:00Z');
  });

  it('else a hash of contact, text and minute (SHA-256, first 16 bytes, hex)', async () => {
    const key = await manyChatMessageKey(webhook(), 'hi', at(1_000));
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`1001\nhi\n${minuteStart / 60_000}`)));
    expect(key).toBe(`h:${[...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}`);
  });

  it('the hash is the same for a retry within the minute, and differs by minute, text or contact', async () => {
    const base = await manyChatMessageKey(webhook(), 'hi', at(1_000));
    expect(await manyChatMessageKey(webhook(), 'hi', at(59_000))).toBe(base);
    expect(await manyChatMessageKey(webhook(), 'hi', at(61_000))).not.toBe(base);
    expect(await manyChatMessageKey(webhook(), 'hi!', at(1_000))).not.toBe(base);
    expect(await manyChatMessageKey(webhook({ id: '1002' }), 'hi', at(1_000))).not.toBe(base);
  });

  it('an empty last_interaction falls through to the hash; different kinds of key cannot collide (prefixes)', async () => {
    expect(await manyChatMessageKey(webhook({ last_interaction: '' }), 'hi', at(0))).toMatch(/^h:[0-9a-f]{32}$/);
    expect(await manyChatMessageKey(webhook({}, 'li:1001:x'), 'hi', at(0))).toBe('k:li:1001:x');
  });
});
