import { describe, expect, it } from 'vitest';
import { FINISH_TURN_PATH } from '../../core/finish-turn-job.js';
import { tenantKeys } from '../../core/storage/keys.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { defaultGuardrails } from '../../guardrails/default-guardrails.js';
import { signCallback } from '../../src/approvals/callback-signature.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session, workerEnv } from '../support/workers-env.js';
import { appWith, turnRecord } from './turn-helpers.js';

/** The reproductions from the fuzz run: each answered 500 (or stranded its claim) before. */
const brochure = () =>
  scriptedModel([{ calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('On its way.') }]);
const turns = (tenantId: string) => session().one((r) => r.zcard(tenantKeys(tenantId).turnLog));
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

describe('every string from outside is well-formed Unicode, or a 400 naming where', () => {
  it.each([
    ['message_key', { contact: { id: '1' }, text: 'hi', message_key: '\ud800' }, 'message_key'],
    [
      'contact.last_interaction',
      { contact: { id: '1', last_interaction: 'x\udc00' }, text: 'hi' },
      'contact.last_interaction',
    ],
    ['a custom field key', { contact: { id: '1', custom_fields: { '\ud83d': 1 } }, text: 'hi' }, 'a key'],
  ])('a lone surrogate in %s → 400, nothing staged', async (_where, body, named) => {
    const { tenantId, secret } = await seedTenant();
    // JSON.stringify escapes lone surrogates as \\udXXX, exactly what a fuzzer sends.
    const res = await appWith(brochure()).post(tenantId, secret, JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain(named);
    expect(await turns(tenantId)).toBe(0);
  });

  it("a lone surrogate in a callback's nonce → 4xx, never 500", async () => {
    const { tenantId, secret } = await seedTenant();
    const body = JSON.stringify({
      contact: { id: '1' },
      callback: { kind: 'confirm', pendingId: 'cf_x', answer: 'yes', nonce: '\ud800' },
      sig: 'x',
    });
    expect((await appWith(brochure()).post(tenantId, secret, body)).status).toBe(400);
    expect((await appWith(brochure()).post(tenantId, null, body)).status).toBe(401);
  });
});

describe('deep nesting is refused at parse, and leaves no claim behind', () => {
  it("custom_fields nested 20,000 arrays deep (40 KB) → 400; the contact's next message is answered at once", async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const deep = `{"contact":{"id":"${contactId}","custom_fields":{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}},"text":"hi","message_key":"m1"}`;
    const app = appWith(brochure());
    const res = await app.post(tenantId, secret, deep);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain('deeper than 64');
    const next = await app.post(tenantId, secret, {
      contact: { id: contactId },
      text: 'send the brochure',
      message_key: 'm1',
    });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-duplicate-of')).toBeNull();
    expect((await turnRecord(tenantId, next.headers.get('x-turn-id')!)).decision).toBe('pass');
  });
});

describe('signed but garbage bodies get a 4xx, never 500', () => {
  it.each(['a b', '../../x', 'x'.repeat(201)])('a signed button with pendingId %j', async (pendingId) => {
    const { tenantId, secret } = await seedTenant();
    const claim = { kind: 'confirm' as const, tenantId, contactId: '1', pendingId, answer: 'yes' as const, nonce: 'n' };
    const sig = await signCallback(workerEnv.SESSION_SECRET!, claim);
    const body = { contact: { id: '1' }, callback: { kind: 'confirm', pendingId, answer: 'yes', nonce: 'n' }, sig };
    const [withHeader, without] = [
      await appWith(brochure()).post(tenantId, secret, body),
      await appWith(brochure()).post(tenantId, null, body),
    ];
    expect(withHeader.status).toBe(400);
    expect(await errorOf(withHeader)).toBe('invalid ManyChat webhook body');
    expect(without.status).toBe(401);
  });

  it.each([
    ['an empty turn id', { turnId: '' }],
    ['a turn id with a slash', { turnId: 'a/b' }],
    ['a turn id over 200 characters', { turnId: 't'.repeat(201) }],
    ['a tenant id that climbs', { tenantId: '../x' }],
  ])('a signed finish-turn job with %s → 400', async (_what, over) => {
    const { tenantId } = await seedTenant();
    const job = {
      turnId: 'turn_ok',
      inbound: {
        tenantId,
        channel: 'manychat',
        contactId: '1',
        messageKey: 'k',
        text: 'hi',
        contact: { fields: {} },
        receivedAt: new Date().toISOString(),
      },
    };
    const body = JSON.stringify(
      'tenantId' in over ? { ...job, inbound: { ...job.inbound, tenantId: over.tenantId } } : { ...job, ...over },
    );
    const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}${FINISH_TURN_PATH}`;
    const signature = await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body });
    const res = await appWith(brochure()).fetch(
      new Request(`http://worker.test${FINISH_TURN_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'upstash-signature': signature },
        body,
      }),
    );
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe('invalid finish-turn job');
  });
});

describe('a turn that fails before its commit still answers', () => {
  it('a stage that throws: the fallback reply, nothing staged committed, and a retry of the delivery gets the same answer', async () => {
    const { tenantId, secret } = await seedTenant();
    // A guardrail whose very name throws breaks the judge stage outside any guardrail's own try.
    const broken: Guardrail = Object.defineProperty(
      { check: () => ({ outcome: 'pass' as const, reason: 'ok' }) },
      'name',
      {
        get: () => {
          throw new TypeError('boom');
        },
      },
    ) as unknown as Guardrail;
    const app = appWith(brochure(), [...defaultGuardrails, broken]);
    const body = { contact: { id: await newContact() }, text: 'send the brochure', message_key: 'fails-once' };
    const res = await app.post(tenantId, secret, body);
    expect(res.status).toBe(200);
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('error');
    expect(record.committed).toEqual([]);
    expect(record.reply.text).toMatch(/Sorry/);
    const retry = await app.post(tenantId, secret, body);
    expect(retry.headers.get('x-duplicate-of')).toBe(record.turnId);
    expect(((await retry.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text).toBe(
      record.reply.text,
    );
    expect(await session().one((r) => r.zscore(tenantKeys(tenantId).openClaims, record.turnId))).toBeNull();
  });
});
