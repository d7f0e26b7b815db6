import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { signCallback, type CallbackClaim } from '../../approvals/callback-signature.js';
import type { Services } from '../../http/app-context.js';
import { seedTenant, session, testSecretKeys, workerEnv } from '../../../test/support/workers-env.js';
import { authenticateManyChatWebhook, WEBHOOK_SECRET_HEADER, type ManyChatContext } from './webhook-auth.js';

const SESSION_SECRET = workerEnv.SESSION_SECRET!;
// A real tenant in the real Redis: the middleware loads it itself (one round trip) before judging.
const seeded = await seedTenant();
const SECRET = seeded.secret;
const tenantId = seeded.tenantId;

/** The middleware alone, mounted at `/:tenant`; the handler echoes what it set. */
async function appUnderTest() {
  const app = new Hono<ManyChatContext>();
  app.use('*', async (c, next) => {
    // Only env.SESSION_SECRET, the secret keys and the session are read by this middleware.
    c.set('services', { env: { SESSION_SECRET }, secretKeys: testSecretKeys } as unknown as Services);
    c.set('session', session());
    await next();
  });
  app.post('/:tenant', authenticateManyChatWebhook(), (c) =>
    c.json({ auth: c.get('auth'), contactId: c.get('webhook').contact.id }),
  );
  return (body: unknown, secret?: string, tenant = tenantId) =>
    app.request(`/${tenant}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret !== undefined ? { [WEBHOOK_SECRET_HEADER]: secret } : {}),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
}

const message = { contact: { id: '1001' }, text: 'hi' };
async function button(
  claim: Extract<CallbackClaim, { kind: 'confirm' }>,
  signAs: CallbackClaim = claim,
  secret = SESSION_SECRET,
) {
  const { tenantId: _t, contactId, ...callback } = claim;
  return { contact: { id: contactId }, callback, sig: await signCallback(secret, signAs) };
}
const yes: Extract<CallbackClaim, { kind: 'confirm' }> = {
  kind: 'confirm',
  tenantId,
  contactId: '1001',
  pendingId: 'cf_1',
  answer: 'yes',
  nonce: 'n1',
};

describe('authenticateManyChatWebhook: a message needs the secret header', () => {
  it('the right secret: authenticated via secret, the body parsed', async () => {
    const res = await (await appUnderTest())(message, SECRET);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ auth: { via: 'secret' }, contactId: '1001' });
  });

  it('a wrong secret is 401 naming the header, whatever the body', async () => {
    const post = await appUnderTest();
    for (const body of [message, 'not json']) {
      const res = await post(body, `${SECRET}x`);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: `wrong ${WEBHOOK_SECRET_HEADER} for this tenant` });
    }
  });

  it('no header: 401 missing header — for a valid body, bad JSON and an invalid body alike (nothing learnt about the body)', async () => {
    const post = await appUnderTest();
    for (const body of [message, '{oops', { contact: { id: 'abc' } }]) {
      const res = await post(body);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: `missing ${WEBHOOK_SECRET_HEADER} header` });
    }
  });

  it('with the secret, bad input is a 400 that names the problem', async () => {
    const post = await appUnderTest();
    const badJson = await post('{oops', SECRET);
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { error: string }).error).toMatch(/^body is not valid JSON/);
    const badBody = await post({ contact: { id: 'abc' } }, SECRET);
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toEqual({
      error: 'invalid ManyChat webhook body',
      details: ['contact.id: must be a numeric id'],
    });
  });
});

describe('authenticateManyChatWebhook: a button press needs our signature', () => {
  it('a signed button without the header is authenticated via callback, bound to this tenant and the contact', async () => {
    const res = await (await appUnderTest())(await button(yes));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ auth: { via: 'callback', claim: yes }, contactId: '1001' });
  });

  it('a signed suggestion is authenticated too', async () => {
    const claim: CallbackClaim = { kind: 'suggest', tenantId, contactId: '1001', text: 'Yoga', nonce: 'n2' };
    const body = {
      contact: { id: '1001' },
      callback: { kind: 'suggest', text: 'Yoga', nonce: 'n2' },
      sig: await signCallback(SESSION_SECRET, claim),
    };
    expect(await (await (await appUnderTest())(body)).json()).toEqual({
      auth: { via: 'callback', claim },
      contactId: '1001',
    });
  });

  it('a missing, forged or re-targeted signature is 401 — even with the right secret header', async () => {
    const post = await appUnderTest();
    const forged = [
      { ...(await button(yes)), sig: undefined },
      { ...(await button(yes)), sig: 'deadbeef' },
      await button(yes, yes, 'another-session-secret'),
      await button({ ...yes, answer: 'no' }, yes), // the Yes signature on a No
      await button({ ...yes, contactId: '1002' }, yes), // another contact's button
      await button(yes, { ...yes, tenantId: 'another_tenant' }), // another tenant's button
    ];
    for (const body of forged) {
      for (const secret of [undefined, SECRET]) {
        const res = await post(body, secret);
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'callback signature is missing or does not match' });
      }
    }
  });

  it('a wrong secret header is refused before the signature is looked at', async () => {
    const res = await (await appUnderTest())(await button(yes), 'wrong');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toContain('wrong');
  });
});
