import { describe, expect, it } from 'vitest';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { createApp } from '../../src/app.js';
import { buildOutboxEntry, type OutboxEntry } from '../../core/outbox-entry.js';
import type { StagedAction } from '../../core/staged-action.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { demoTenantConfig, DEMO_MANYCHAT_API_KEY } from '../../dev/demo-tenant.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { newContact, session, testSecretKeys, uniqueId, workerEnv } from '../support/workers-env.js';

/**
 * Alerts (issue 32): a dead or unknown letter and a ManyChat key that stopped working are told to
 * the tenant's notification channel once an item, through the outbox. Real Redis, the ManyChat
 * sandbox; the tenant's endpoint is caught in the app's fetch.
 */
const HOOK = 'https://hooks.example.test/alerts';

function appCatchingHooks() {
  const hooks: { url: string; id: string; body: string }[] = [];
  const app = createApp((s) => ({
    ...s,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.url.startsWith('https://hooks.example.test/')) {
        hooks.push({ url: request.url, id: request.headers.get('webhook-id') ?? '', body: await request.text() });
        return new Response('ok', { status: 200 });
      }
      return fetch(request);
    },
  }));
  const call = async (request: Request) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(request, workerEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  return { hooks, call };
}

async function tenantWith(opts: { format?: 'standard' | 'slack'; manychatApiKey?: string } = {}) {
  const tenantId = uniqueId('alrt');
  const adminSecret = `admin-${tenantId}`;
  const save = (manychatApiKey: string) =>
    testSecretKeys().then((keys) =>
      saveTenant(
        session(),
        {
          ...demoTenantConfig(tenantId),
          tenantId,
          // A Slack URL is a credential: sealed (notificationUrl), never in the config.
          notifications: { approvals: opts.format === 'slack' ? { format: 'slack' } : { url: HOOK } },
        },
        {
          plain: {
            webhookSecret: `secret-${tenantId}`,
            adminSecret,
            manychatApiKey,
            ...(opts.format === 'slack' ? { notificationUrl: HOOK } : {}),
          },
          keys,
        },
      ),
    );
  const saved = await save(opts.manychatApiKey ?? DEMO_MANYCHAT_API_KEY);
  if (!saved.ok) throw new Error(saved.problems.join('; '));
  return { tenantId, adminSecret, save };
}

function tagAction(id: string, summary = 'add tag "interested"'): StagedAction {
  return {
    id,
    tool: 'tag_contact',
    kind: 'add_tag',
    args: { tag: 'interested' },
    effect: 'write',
    idempotent: true,
    gate: 'none',
    summary,
  };
}

async function writeEntry(tenantId: string, contactId: string, actions: StagedAction[]): Promise<string> {
  const entryId = uniqueId('turn');
  const entry: OutboxEntry = buildOutboxEntry({
    entryId,
    tenantId,
    channel: 'manychat',
    contactId,
    actions,
    now: new Date(),
  });
  const keys = tenantKeys(tenantId);
  await session().multi((m) => {
    m.set(keys.outbox(entryId), JSON.stringify(entry), { ex: 3600 });
    m.zadd(keys.outboxPending, { score: Date.now(), member: entryId });
  });
  return entryId;
}

async function deliver(call: (r: Request) => Promise<Response>, tenantId: string, turnId: string) {
  const body = JSON.stringify({ tenantId, turnId });
  const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/v1/outbox/deliver`;
  return call(
    new Request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'Upstash-Signature': await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body }),
      },
      body,
    }),
  );
}

/** The alert entries committed for the tenant (their ids start `alert-`), oldest first. */
async function alertEntries(tenantId: string): Promise<string[]> {
  const members = await session().one((r) => r.zrange<string[]>(tenantKeys(tenantId).outboxPending, 0, -1));
  return members.filter((m) => m.startsWith('alert-'));
}

/** Delivers every alert entry still pending (what QStash does), and answers the events the endpoint got. */
async function deliverAlerts(app: ReturnType<typeof appCatchingHooks>, tenantId: string) {
  for (const id of await alertEntries(tenantId)) expect((await deliver(app.call, tenantId, id)).status).toBe(200);
  return app.hooks.map((h) => JSON.parse(h.body) as { type: string; text?: string; event?: { type: string } });
}

const dashboard = (
  call: (r: Request) => Promise<Response>,
  tenantId: string,
  adminSecret: string,
  path: string,
  init: RequestInit = {},
) =>
  call(
    new Request(`http://worker.test/v1/outbox/dead-letters/${tenantId}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${adminSecret}`, 'content-type': 'application/json' },
    }),
  );

describe('alerts: at most once an item, through the outbox', () => {
  it('a dead letter is alerted once, however often it is delivered, listed or re-driven', async () => {
    const { tenantId, adminSecret } = await tenantWith();
    const app = appCatchingHooks();
    // A contact the sandbox does not know: ManyChat refuses the tag for good (dead).
    const turnId = await writeEntry(tenantId, '999000111222', [tagAction('a1')]);
    expect((await deliver(app.call, tenantId, turnId)).status).toBe(200);
    // Committed for the outbox, not POSTed inline.
    expect(app.hooks).toHaveLength(0);
    expect(await alertEntries(tenantId)).toHaveLength(1);

    // Delivered again (a QStash retry), listed twice, re-driven twice (dead again each time).
    expect((await deliver(app.call, tenantId, turnId)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const listed = (await (await dashboard(app.call, tenantId, adminSecret, '')).json()) as {
        deadLetters: { actionId: string }[];
      };
      expect(listed.deadLetters.map((l) => l.actionId)).toContain('a1');
    }
    for (let i = 0; i < 2; i++) {
      const res = await dashboard(app.call, tenantId, adminSecret, '/redrive', {
        method: 'POST',
        body: JSON.stringify({ entryId: turnId, actionId: 'a1' }),
      });
      expect(res.status).toBe(502);
    }
    expect(await alertEntries(tenantId)).toHaveLength(1);

    const events = await deliverAlerts(app, tenantId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'delivery.dead', tenantId, turnId, actionId: 'a1', kind: 'add_tag' });
    expect(JSON.stringify(events[0])).toContain('Subscriber does not exist');
    // The alert entry delivered again sends nothing more.
    await deliverAlerts(app, tenantId);
    expect(app.hooks).toHaveLength(1);
  });

  it('two dead letters are two alerts; a notification that dies alerts nobody', async () => {
    const { tenantId } = await tenantWith();
    const app = appCatchingHooks();
    const turnId = await writeEntry(tenantId, '999000111333', [
      tagAction('b1'),
      tagAction('b2'),
      {
        ...tagAction('b3'),
        tool: 'system:approval-notification',
        kind: 'notify_webhook',
        args: { url: 'https://gone.example.test/x', body: '{}', webhookId: 'b3', event: 'approval.pending' },
      },
    ]);
    await deliver(app.call, tenantId, turnId);
    expect(await alertEntries(tenantId)).toHaveLength(2);
  });

  it('a ManyChat key that stopped working is alerted once an outage, not once a delivery', async () => {
    const { tenantId, save } = await tenantWith({ manychatApiKey: 'revoked-key' });
    const app = appCatchingHooks();
    const contact = await newContact();
    for (let i = 0; i < 3; i++)
      expect(
        (await deliver(app.call, tenantId, await writeEntry(tenantId, contact, [tagAction(`k${i}`)]))).status,
      ).toBe(200);
    let events = await deliverAlerts(app, tenantId);
    expect(events.filter((e) => e.type === 'manychat.key_refused')).toHaveLength(1);
    // Each refused action is its own dead letter too.
    expect(events.filter((e) => e.type === 'delivery.dead')).toHaveLength(3);

    // The key is fixed and gets through: the outage is over. Broken again: a new outage, a new alert.
    expect((await save(DEMO_MANYCHAT_API_KEY)).ok).toBe(true);
    expect((await deliver(app.call, tenantId, await writeEntry(tenantId, contact, [tagAction('ok1')]))).status).toBe(
      200,
    );
    expect((await save('revoked-again')).ok).toBe(true);
    await deliver(app.call, tenantId, await writeEntry(tenantId, contact, [tagAction('k9')]));
    await deliver(app.call, tenantId, await writeEntry(tenantId, contact, [tagAction('k10')]));
    app.hooks.length = 0;
    events = await deliverAlerts(app, tenantId);
    expect(events.filter((e) => e.type === 'manychat.key_refused')).toHaveLength(1);
  });

  it("Slack's text escapes what the action's words carry", async () => {
    const { tenantId } = await tenantWith({ format: 'slack' });
    const app = appCatchingHooks();
    const turnId = await writeEntry(tenantId, '999000111444', [
      tagAction('s1', 'add tag <!channel> & <https://evil.test|click>'),
    ]);
    await deliver(app.call, tenantId, turnId);
    const [event] = await deliverAlerts(app, tenantId);
    expect(event!.event!.type).toBe('delivery.dead');
    expect(event!.text).toContain('&lt;!channel&gt; &amp; &lt;https://evil.test|click&gt;');
    expect(event!.text).not.toContain('<!channel>');
  });

  it('a tenant without a notification channel commits no alert', async () => {
    const tenantId = uniqueId('alrt');
    const saved = await saveTenant(
      session(),
      { ...demoTenantConfig(tenantId), tenantId },
      {
        plain: { webhookSecret: `s-${tenantId}`, adminSecret: `a-${tenantId}`, manychatApiKey: 'revoked' },
        keys: await testSecretKeys(),
      },
    );
    expect(saved.ok).toBe(true);
    const app = appCatchingHooks();
    await deliver(app.call, tenantId, await writeEntry(tenantId, '999000111555', [tagAction('n1')]));
    expect(await alertEntries(tenantId)).toHaveLength(0);
  });
});
