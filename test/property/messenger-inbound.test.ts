import { fc, it } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { signHubBody } from '../../src/channels/messenger/hub-signature.js';
import { echoModel, seedMessengerTenant, type MessengerTenant } from '../workers/messenger-helpers.js';
import { appWith } from '../workers/turn-helpers.js';
import { fuzzParams, PROPERTY_TIMEOUT_MS, quietRoutineLogs, StatusTally } from './fuzz-run.js';

/**
 * Messenger webhook bodies, fuzzed, all correctly signed (so the parser, not the signature check,
 * is what is exercised), against the real app in workerd and a real Redis. Properties: never 5xx;
 * a 4xx names the problem; 200 only for a body whose every item the schema accepts; the work after
 * the 200 never throws out of the isolate (settle resolves).
 */
const tally = new StatusTally('messenger-inbound');
let t: MessengerTenant;
const app = appWith(echoModel());
let restoreLogs: () => void;
beforeAll(async () => {
  restoreLogs = quietRoutineLogs();
  t = await seedMessengerTenant();
});
afterAll(() => {
  restoreLogs();
  tally.print();
});

const anyJson = fc.jsonValue({ maxDepth: 3 });
const id = fc.oneof(fc.stringMatching(/^\d{1,20}$/), fc.nat(), fc.string({ maxLength: 5 }), fc.constant(-1));
const item = fc.record(
  {
    sender: fc.oneof(fc.record({ id }), anyJson),
    recipient: fc.record({ id }),
    timestamp: fc.oneof(
      fc.nat(),
      fc.constant(1e20),
      fc.double(),
      fc.constant(-5),
      fc.constant(Number.MAX_SAFE_INTEGER),
    ),
    message: fc.oneof(
      fc.record(
        {
          mid: fc.string({ maxLength: 30 }),
          text: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('')),
          is_echo: fc.boolean(),
        },
        { requiredKeys: ['mid'] },
      ),
      fc.record({
        mid: fc.string({ minLength: 1, maxLength: 10 }),
        quick_reply: fc.record({
          payload: fc.oneof(
            fc.string({ maxLength: 50 }),
            fc.constant('{"sa":1,"kind":"confirm"}'),
            fc.constant('{not json'),
          ),
        }),
      }),
      fc.record({
        mid: fc.string({ minLength: 1, maxLength: 10 }),
        attachments: fc.array(
          fc.record({
            type: fc.string({ maxLength: 10 }),
            payload: fc.oneof(fc.constant(null), fc.record({ url: fc.webUrl() })),
          }),
          { maxLength: 3 },
        ),
      }),
      anyJson,
    ),
    postback: fc.record(
      { title: fc.string({ maxLength: 20 }), payload: fc.string({ maxLength: 40 }) },
      { requiredKeys: [] },
    ),
    read: fc.record({ watermark: fc.nat() }),
  },
  { requiredKeys: ['sender', 'recipient', 'timestamp'] },
);
/** Items the schema accepts (so the code after the parse is exercised): texts, echoes, attachments, presses, reads. */
const psid = fc.stringMatching(/^\d{1,16}$/);
const validItem = fc.record({
  sender: fc.record({ id: psid }),
  recipient: fc.record({ id: psid }),
  timestamp: fc.oneof(
    fc.integer({ min: 0, max: 4_102_444_800_000 }),
    fc.constant(8_640_000_000_000_000),
    fc.constant(1e20),
    fc.constant(9_000_000_000_000_000),
  ),
  message: fc.oneof(
    fc.record({ mid: fc.string({ minLength: 1, maxLength: 20 }), text: fc.string({ maxLength: 40 }) }),
    fc.record({
      mid: fc.string({ minLength: 1, maxLength: 20 }),
      text: fc.string({ maxLength: 10 }),
      is_echo: fc.constant(true),
    }),
    fc.record({
      mid: fc.string({ minLength: 1, maxLength: 20 }),
      attachments: fc.array(
        fc.record({
          type: fc.constantFrom('image', 'file', 'location', 'fallback'),
          payload: fc.oneof(fc.constant(null), fc.record({ url: fc.webUrl() })),
        }),
        { maxLength: 3 },
      ),
    }),
    fc.record({
      mid: fc.string({ minLength: 1, maxLength: 20 }),
      text: fc.constant('Yes'),
      quick_reply: fc.record({
        payload: fc.oneof(
          fc.string({ maxLength: 50 }),
          fc.constant('sa1:suggest'),
          fc.constant(
            JSON.stringify({
              sa: 1,
              kind: 'confirm',
              pendingId: 'cf_x',
              answer: 'yes',
              nonce: 'n',
              sig: 'ab'.repeat(32),
            }),
          ),
        ),
      }),
    }),
  ),
});
// Valid bodies are for the tenant's own page (issue 31: any other page's entries are ignored), so their items reach the turns.
const validBody = fc
  .record({
    object: fc.constant('page'),
    entry: fc.array(fc.record({ id: psid, time: fc.nat(), messaging: fc.array(validItem, { maxLength: 3 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
  })
  .map((b) =>
    JSON.stringify({
      ...b,
      entry: b.entry.map((e) => ({
        ...e,
        id: t.pageId,
        messaging: e.messaging.map((m) => ({ ...m, recipient: { id: t.pageId } })),
      })),
    }),
  );

const body = fc.oneof(
  { weight: 4, arbitrary: validBody },
  {
    weight: 4,
    arbitrary: fc
      .record({
        object: fc.oneof(fc.constant('page'), fc.constant('instagram')),
        entry: fc.array(
          fc.record({ id, time: fc.nat(), messaging: fc.array(item, { maxLength: 4 }) }, { requiredKeys: ['id'] }),
          { maxLength: 3 },
        ),
      })
      .map((b) => JSON.stringify(b)),
  },
  { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
);

describe('Messenger webhook bodies, signed', () => {
  it.prop([body], fuzzParams(150))(
    'never 5xx; a 4xx names the problem; the work after the answer settles',
    async (raw) => {
      const res = await app.fetch(
        new Request(`http://worker.test/v1/messenger/${t.tenantId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': await signHubBody(raw, t.appSecret) },
          body: raw,
        }),
      );
      const text = await res.text();
      tally.record(res.status);
      expect(res.status, text.slice(0, 300)).toBeLessThan(500);
      if (res.status !== 200) expect((JSON.parse(text) as { error: unknown }).error).toEqual(expect.any(String));
      else
        expect(JSON.parse(text)).toMatchObject({
          received: { messages: expect.any(Number), presses: expect.any(Number), ignored: expect.any(Number) },
        });
      await app.settle();
    },
    PROPERTY_TIMEOUT_MS,
  );
});
