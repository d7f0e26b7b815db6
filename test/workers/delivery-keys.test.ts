import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session } from '../support/workers-env.js';
import { appWith, turnRecord } from './turn-helpers.js';

/** A delivery key is scoped to tenant and contact and is a hash of the whole key, never a truncation. */
describe('delivery keys', () => {
  it('message keys whose escaped form differs only after 300 characters, from two contacts, are two deliveries with two replies', async () => {
    const { tenantId, secret } = await seedTenant();
    const model = scriptedModel([{ reply: reply('reply for the first') }, { reply: reply('reply for the second') }]);
    const app = appWith(model);
    // 100 × '€' escapes to 900 characters: the old key cut at 300 made these two keys one.
    const prefix = '€'.repeat(100);
    const [a, b] = [await newContact(), await newContact()];
    const first = await app.post(tenantId, secret, { contact: { id: a }, text: 'hi', message_key: `${prefix}A` });
    const second = await app.post(tenantId, secret, { contact: { id: b }, text: 'hi', message_key: `${prefix}B` });
    expect(second.headers.get('x-duplicate-of')).toBeNull();
    expect(first.headers.get('x-turn-id')).not.toBe(second.headers.get('x-turn-id'));
    expect((await turnRecord(tenantId, second.headers.get('x-turn-id')!)).contactId).toBe(b);
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('the same message key from two contacts is two deliveries; from the same contact, one', async () => {
    const { tenantId, secret } = await seedTenant();
    const app = appWith(scriptedModel([{ reply: reply('one') }, { reply: reply('two') }, { reply: reply('three') }]));
    const [a, b] = [await newContact(), await newContact()];
    const ra = await app.post(tenantId, secret, { contact: { id: a }, text: 'hi', message_key: 'same' });
    const rb = await app.post(tenantId, secret, { contact: { id: b }, text: 'hi', message_key: 'same' });
    const again = await app.post(tenantId, secret, { contact: { id: a }, text: 'hi', message_key: 'same' });
    expect(rb.headers.get('x-duplicate-of')).toBeNull();
    expect(again.headers.get('x-duplicate-of')).toBe(ra.headers.get('x-turn-id'));
  });

  it('a repeated key with other words is a new message: its own turn and reply, never the earlier answer (message_key and last_interaction)', async () => {
    const { tenantId, secret } = await seedTenant();
    const model = scriptedModel([
      { reply: reply('first answer') },
      { reply: reply('second answer') },
      { reply: reply('third answer') },
      { reply: reply('fourth answer') },
    ]);
    const app = appWith(model);
    const contact = await newContact();
    for (const keyed of [
      { message_key: 'not-unique' },
      { contact: { id: contact, last_interaction: '2026-11-29T10:00:00Z' } },
    ]) {
      const body = (text: string) => ({ contact: { id: contact }, text, ...keyed });
      const first = await app.post(tenantId, secret, body(`I prefer pilates ${JSON.stringify(keyed).length}`));
      const other = await app.post(tenantId, secret, body('Actually, please cancel'));
      expect(other.headers.get('x-duplicate-of')).toBeNull();
      expect(other.headers.get('x-turn-id')).not.toBe(first.headers.get('x-turn-id'));
      expect((await turnRecord(tenantId, other.headers.get('x-turn-id')!)).inbound.text).toBe(
        'Actually, please cancel',
      );
    }
    expect(model.doGenerateCalls).toHaveLength(4);
  });

  it('with no key at all, a retry is a duplicate wherever the minute turns: the claim is a window from the first delivery', async () => {
    const { tenantId, secret } = await seedTenant();
    const app = appWith(scriptedModel([{ reply: reply('one') }, { reply: reply('two') }]));
    const contact = await newContact();
    const first = await app.post(tenantId, secret, { contact: { id: contact }, text: 'hello there' });
    const turnId = first.headers.get('x-turn-id')!;
    const record = await turnRecord(tenantId, turnId);
    const { deliveryKeyDigest, FALLBACK_KEY_WINDOW_SECONDS } = await import('../../core/storage/keys.js');
    expect(record.inbound.messageKey).toMatch(/^h:[0-9a-f]{32}$/);
    const claimKey = tenantKeys(tenantId).claim(await deliveryKeyDigest(contact, record.inbound.messageKey));
    const ttl = await session().one((r) => r.ttl(claimKey));
    expect(ttl).toBeGreaterThan(FALLBACK_KEY_WINDOW_SECONDS - 30);
    expect(ttl).toBeLessThanOrEqual(FALLBACK_KEY_WINDOW_SECONDS);
    const retry = await app.post(tenantId, secret, { contact: { id: contact }, text: 'hello there' });
    expect(retry.headers.get('x-duplicate-of')).toBe(turnId);
  });

  it('a committed turn leaves no open claim behind (the sweeper has nothing to finish)', async () => {
    const { tenantId, secret } = await seedTenant();
    const res = await appWith(scriptedModel([{ reply: reply('hi') }])).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'hi',
    });
    const turnId = res.headers.get('x-turn-id')!;
    const keys = tenantKeys(tenantId);
    expect(await session().one((r) => r.zscore(keys.openClaims, turnId))).toBeNull();
    expect(await session().one((r) => r.exists(keys.claimJob(turnId)))).toBe(0);
  });
});
