import { describe, expect, it } from 'vitest';
import { MessengerWebhookSchema } from './events-schema.js';
import { FOREIGN_PAGE, readEvents } from './read-events.js';

const at = new Date('2026-06-01T10:00:00.000Z');
const page = '100';
const owned = new Set([page]);
const from = (psid: string, timestamp: number, rest: Record<string, unknown>) => ({
  sender: { id: psid },
  recipient: { id: page },
  timestamp,
  ...rest,
});
const webhook = (...entries: unknown[][]) =>
  MessengerWebhookSchema.parse({
    object: 'page',
    entry: entries.map((messaging) => ({ id: page, time: 1, messaging })),
  });

describe('readEvents: every entry and messaging item, sorted by when the contact acted', () => {
  it('messages from all entries, in timestamp order; echoes, deliveries, reads and standby ignored', () => {
    const events = readEvents(
      MessengerWebhookSchema.parse({
        object: 'page',
        entry: [
          {
            id: page,
            messaging: [
              from('1', 300, { message: { mid: 'm3', text: 'third' } }),
              from(page, 100, { message: { mid: 'e', text: 'ours', is_echo: true } }),
            ],
          },
          {
            id: page,
            messaging: [
              from('2', 200, { message: { mid: 'm2', text: 'second' } }),
              from('1', 50, { delivery: { watermark: 1 } }),
              from('1', 60, { read: { watermark: 1 } }),
            ],
            standby: [{}],
          },
        ],
      }),
      't',
      at,
      owned,
    );
    expect(
      events
        .filter((e) => e.kind === 'message')
        .map((e) => e.kind === 'message' && [e.inbound.contactId, e.inbound.messageKey, e.inbound.text]),
    ).toEqual([
      ['2', 'mid:m2', 'second'],
      ['1', 'mid:m3', 'third'],
    ]);
    expect(
      events
        .filter((e) => e.kind === 'ignored')
        .map((e) => e.kind === 'ignored' && e.why)
        .sort(),
    ).toEqual(['delivery event', 'echo of our own message', 'read event', 'standby (another app holds the thread)']);
  });

  it('an item it cannot read is skipped with the reason; the other items of the batch still run', () => {
    const events = readEvents(
      MessengerWebhookSchema.parse({
        object: 'page',
        entry: [
          {
            id: page,
            messaging: [
              { sender: { id: 'not-a-psid' }, message: { mid: 'a', text: 'x' } },
              'junk',
              from('1', 5, { message: { mid: 'b', text: 'fine' } }),
            ],
          },
        ],
      }),
      't',
      at,
      owned,
    );
    expect(events.map((e) => e.kind)).toEqual(['ignored', 'ignored', 'message']);
    expect(events[0]).toMatchObject({ why: expect.stringContaining('sender.id: must be a numeric id') });
  });

  it('a delivery event without a timestamp (as Meta sends them) is read and ignored, not refused', () => {
    const events = readEvents(
      MessengerWebhookSchema.parse({
        object: 'page',
        entry: [
          {
            id: page,
            messaging: [
              { sender: { id: '1' }, recipient: { id: page }, delivery: { mids: ['m'], watermark: 1 } },
              { sender: { id: '1' }, message: { mid: 'm9', text: 'hi' } },
            ],
          },
        ],
      }),
      't',
      at,
      owned,
    );
    expect(events.map((e) => e.kind)).toEqual(['ignored', 'message']);
    expect(events[1]).toMatchObject({ inbound: { contact: { lastInteraction: at.toISOString() } } });
  });

  it('the message time starts the window; receivedAt is when we got it; attachments keep type and URL only', () => {
    const [e] = readEvents(
      webhook([
        from('1', Date.parse('2026-06-01T09:00:00Z'), {
          message: {
            mid: 'm',
            attachments: [
              { type: 'image', payload: { url: 'https://x.test/a.jpg', sticker_id: 1 } },
              { type: 'location', payload: null },
            ],
          },
        }),
      ]),
      't',
      at,
      owned,
    );
    expect(e).toMatchObject({
      kind: 'message',
      inbound: {
        channel: 'messenger',
        text: '',
        contact: { lastInteraction: '2026-06-01T09:00:00.000Z', fields: {} },
        receivedAt: at.toISOString(),
        attachments: [{ type: 'image', url: 'https://x.test/a.jpg' }, { type: 'location' }],
      },
    });
  });

  it('a page postback is what the contact said (its title); a confirm-shaped payload is a press (checked later); an empty message is ignored', () => {
    const confirm = JSON.stringify({
      sa: 1,
      kind: 'confirm',
      pendingId: 'cf_1',
      answer: 'yes',
      nonce: 'n',
      sig: 'ab'.repeat(32),
    });
    const events = readEvents(
      webhook([
        from('1', 1, { postback: { mid: 'p1', title: 'Get Started', payload: 'GET_STARTED' } }),
        from('1', 2, { postback: { mid: 'p2', title: 'Yes', payload: confirm } }),
        from('1', 3, { message: { mid: 'q', text: 'Yes', quick_reply: { payload: confirm } } }),
        from('1', 4, { message: { mid: 'q2', text: 'Pilates', quick_reply: { payload: 'sa1:suggest' } } }),
        from('1', 5, { message: { mid: 'x', text: '  ' } }),
      ]),
      't',
      at,
      owned,
    );
    // Ignored items carry no time and sort first; the rest by timestamp.
    expect(
      events.map((e) =>
        e.kind === 'message'
          ? `message:${e.inbound.messageKey}:${e.inbound.text}`
          : e.kind === 'confirm'
            ? `confirm:${e.key}:${e.payload.answer}`
            : `ignored`,
      ),
    ).toEqual([
      'ignored',
      'message:mid:p1:Get Started',
      'confirm:mid:p2:yes',
      'confirm:mid:q:yes',
      'message:mid:q2:Pilates',
    ]);
  });

  it('an entry for a page the tenant does not own, or an item whose recipient is another page, is ignored and named; the owned page still runs', () => {
    const events = readEvents(
      MessengerWebhookSchema.parse({
        object: 'page',
        entry: [
          {
            id: '999999999999',
            messaging: [
              {
                sender: { id: '1' },
                recipient: { id: '999999999999' },
                timestamp: 1,
                message: { mid: 'f1', text: 'foreign' },
              },
            ],
          },
          {
            id: page,
            messaging: [
              {
                sender: { id: '2' },
                recipient: { id: '555' },
                timestamp: 2,
                message: { mid: 'f2', text: 'misrouted' },
              },
              from('3', 3, { message: { mid: 'ok', text: 'mine' } }),
            ],
          },
        ],
      }),
      't',
      at,
      owned,
    );
    expect(events.filter((e) => e.kind === 'message').map((e) => e.kind === 'message' && e.inbound.text)).toEqual([
      'mine',
    ]);
    const why = events.flatMap((e) => (e.kind === 'ignored' ? [e.why] : []));
    expect(why).toHaveLength(2);
    expect(why.every((w) => w.startsWith(FOREIGN_PAGE))).toBe(true);
    expect(why.join(' ')).toContain('999999999999');
    // No page listed at all: nothing runs (fail closed).
    expect(
      readEvents(webhook([from('1', 5, { message: { mid: 'x', text: 'hi' } })]), 't', at, new Set()).map((e) => e.kind),
    ).toEqual(['ignored']);
  });
});
