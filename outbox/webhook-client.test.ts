import { describe, expect, it } from 'vitest';
import {
  createWebhookClient,
  standardWebhookSignature,
  tenantWebhookSecret,
  tenantWebhookSecrets,
} from './webhook-client.js';

const CURRENT = 'notification-test-secret-now';
const PREVIOUS = 'notification-test-secret-before';

/** Captures the one request the client sends. */
function capturing() {
  const sent: Request[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    sent.push(new Request(input, init));
    return new Response('ok');
  };
  return { sent, fetchFn };
}

describe('approval notifications across a rotation of SESSION_SECRET', () => {
  it('the secrets: the current one (the same derivation as always), then the previous one while it is kept', async () => {
    expect(await tenantWebhookSecrets({ current: CURRENT }, 't1')).toEqual([await tenantWebhookSecret(CURRENT, 't1')]);
    expect(await tenantWebhookSecrets({ current: CURRENT, previous: PREVIOUS }, 't1')).toEqual([
      await tenantWebhookSecret(CURRENT, 't1'),
      await tenantWebhookSecret(PREVIOUS, 't1'),
    ]);
    expect(await tenantWebhookSecrets({ current: CURRENT, previous: CURRENT }, 't1')).toHaveLength(1);
    expect((await tenantWebhookSecrets(CURRENT, 't2'))[0]).not.toBe((await tenantWebhookSecrets(CURRENT, 't1'))[0]);
  });

  it('a message carries one signature per secret, space-separated: an endpoint holding either verifies it', async () => {
    const secrets = await tenantWebhookSecrets({ current: CURRENT, previous: PREVIOUS }, 't1');
    const { sent, fetchFn } = capturing();
    const client = createWebhookClient({ secret: async () => secrets, fetch: fetchFn, now: () => 1_700_000_000_000 });
    expect(await client.post('https://hooks.example.test/a', '{"n":1}', 'ap_1.notify')).toEqual({ ok: true });
    const header = sent[0]!.headers.get('webhook-signature')!;
    const listed = header.split(' ');
    expect(listed).toEqual([
      await standardWebhookSignature(secrets[0]!, 'ap_1.notify', 1_700_000_000, '{"n":1}'),
      await standardWebhookSignature(secrets[1]!, 'ap_1.notify', 1_700_000_000, '{"n":1}'),
    ]);
    expect(listed[0]).not.toBe(listed[1]);
  });

  it('with no rotation under way: exactly one signature', async () => {
    const { sent, fetchFn } = capturing();
    const [secret] = await tenantWebhookSecrets(CURRENT, 't1');
    const client = createWebhookClient({ secret: secret!, fetch: fetchFn, now: () => 1_700_000_000_000 });
    await client.post('https://hooks.example.test/a', '{}', 'ap_2.notify');
    expect(sent[0]!.headers.get('webhook-signature')).toBe(
      await standardWebhookSignature(secret!, 'ap_2.notify', 1_700_000_000, '{}'),
    );
  });
});
