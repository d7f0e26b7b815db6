import { afterEach, describe, expect, it } from 'vitest';
import { startManyChatSandbox, type ManyChatSandbox } from './manychat-sandbox.js';

const KEY = '3003:live-key';
let sandbox: ManyChatSandbox | null = null;
afterEach(async () => {
  await sandbox?.close();
  sandbox = null;
});

async function sendFlow(subscriberId: string) {
  const res = await fetch(`${sandbox!.url}/fb/sending/sendFlow`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ subscriber_id: subscriberId, flow_ns: 'content20260101000000_000001' }),
  });
  return { status: res.status, body: (await res.json()) as { status: string; message?: string } };
}

describe('the sandbox as ManyChat for a live business (autoSubscribers, npm start)', () => {
  const page = { pageId: '3003', apiKey: KEY, flows: ['content20260101000000_000001'] };

  it('off (tests): an unknown subscriber does not exist', async () => {
    sandbox = await startManyChatSandbox({ pages: [page] });
    const res = await sendFlow('777');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Subscriber does not exist: 777');
  });

  it('on: anyone who wrote in is a subscriber, created on the first call, inside the 24-hour window', async () => {
    sandbox = await startManyChatSandbox({ pages: [page], autoSubscribers: true });
    expect(await sendFlow('777')).toEqual({ status: 200, body: { status: 'success' } });
    const sub = sandbox.subscriber('3003', '777');
    expect(sub?.id).toBe('777');
    expect(Date.now() - Date.parse(sub!.lastInteraction!)).toBeLessThan(60_000);
    // Still a page that exists, with its real key: another key is refused.
    const wrongKey = await fetch(`${sandbox.url}/fb/sending/sendFlow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer 4004:nope' },
      body: JSON.stringify({ subscriber_id: '1', flow_ns: 'x' }),
    });
    expect(wrongKey.status).toBe(401);
  });

  it('page() shows what a page holds, without its key digest', async () => {
    sandbox = await startManyChatSandbox({ pages: [page] });
    expect(sandbox.page('3003')).toEqual({ ...page, tags: [], customFields: [], flowNames: {} });
    expect(sandbox.page('9999')).toBeUndefined();
  });
});
