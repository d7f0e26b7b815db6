import { describe, expect, it } from 'vitest';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { createApp } from '../../src/app.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session, workerEnv } from '../support/workers-env.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { outboxEntry, turnRecord } from './turn-helpers.js';
import { tenantApi } from './tenant-api.js';
import { tenantKeys } from '../../core/storage/keys.js';
import type { PlainSecrets } from '../../core/tenant/tenant-secrets.js';

const HOOK = 'https://hooks.example.test/approvals';

/** The real app with a scripted model; requests to the tenant's endpoint are caught and answered `status`. */
function appCatchingHooks(status = 200) {
  const hooks: Request[] = [];
  const model = scriptedModel([
    {
      calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
      reply: reply('A team member will look at that.'),
    },
  ]);
  const app = createApp((s) => ({
    ...s,
    model: () => ({ model, modelId: 'scripted-model', offline: false }),
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.url.startsWith('https://hooks.example.test/')) {
        hooks.push(request);
        return new Response(status === 200 ? 'ok' : 'gone for good', { status });
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

async function stageApproval(
  notifications: unknown,
  status = 200,
  opts: { contactName?: string; text?: string; secrets?: Partial<PlainSecrets> } = {},
) {
  const tenant = await seedTenant(notifications ? { notifications: notifications as never } : {}, opts.secrets);
  const { hooks, call } = appCatchingHooks(status);
  const contact = { id: await newContact(), ...(opts.contactName ? { name: opts.contactName } : {}) };
  const res = await call(
    new Request(`http://worker.test/v1/manychat/${tenant.tenantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-staged-agent-secret': tenant.secret },
      body: JSON.stringify({ contact, text: opts.text ?? 'Please remove the interested tag from me' }),
    }),
  );
  const turnId = res.headers.get('x-turn-id')!;
  const record = await turnRecord(tenant.tenantId, turnId);
  expect(record.approvals, record.decisionReason).toHaveLength(1);
  const deliver = async () => {
    const body = JSON.stringify({ tenantId: tenant.tenantId, turnId });
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
  };
  return { ...tenant, hooks, turnId, approvalId: record.approvals[0]!, deliver };
}

/** Standard Webhooks, computed here from the spec (not with the product's code). */
async function expectedSignature(secret: string, id: string, timestamp: string, body: string): Promise<string> {
  const keyBytes = Uint8Array.from(atob(secret.slice('whsec_'.length)), (ch) => ch.charCodeAt(0));
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(
    await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)),
  );
  return `v1,${btoa(String.fromCharCode(...mac))}`;
}

describe('a new pending approval is told to the tenant, signed, through the outbox', () => {
  it('commits a notify_webhook action with the approval, and the delivery POSTs it signed as Standard Webhooks', async () => {
    const { tenantId, adminSecret, hooks, turnId, approvalId, deliver } = await stageApproval({
      approvals: { url: HOOK },
    });
    const entry = await outboxEntry(tenantId, turnId);
    expect(entry?.actions.map((a) => [a.kind, a.tool])).toEqual([['notify_webhook', 'system:approval-notification']]);
    expect(hooks).toHaveLength(0); // committed, not yet performed

    const delivered = await deliver();
    expect(delivered.status).toBe(200);
    expect(hooks).toHaveLength(1);
    const hook = hooks[0]!;
    const body = await hook.text();
    const event = JSON.parse(body) as {
      type: string;
      tenantId: string;
      approvalId: string;
      turnId: string;
      card?: string;
      actions: unknown[];
      review: string;
      approve: string;
      reject: string;
    };
    expect(event).toMatchObject({ type: 'approval.pending', tenantId, approvalId, turnId });
    // The action by tool and kind, and where to review it; not the card (it quotes the contact).
    expect(event.actions).toEqual([{ tool: 'untag_contact', kind: expect.any(String) }]);
    expect(event.card).toBeUndefined();
    expect(event.review).toBe(`${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/dashboard/approvals/${approvalId}/confirm`);
    expect(event.approve).toBe(
      `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/v1/tenants/${tenantId}/approvals/${approvalId}/approve`,
    );

    const { secret } = (await (await tenantApi(tenantId, adminSecret, 'GET', '/notifications/secret')).json()) as {
      secret: string;
    };
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const id = hook.headers.get('webhook-id')!;
    const timestamp = hook.headers.get('webhook-timestamp')!;
    expect(id).toBe(`${approvalId}.notify`);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
    expect(hook.headers.get('webhook-signature')).toBe(await expectedSignature(secret, id, timestamp, body));
    // Another tenant's secret does not verify it.
    const other = await seedTenant();
    const otherSecret = (
      (await (await tenantApi(other.tenantId, other.adminSecret, 'GET', '/notifications/secret')).json()) as {
        secret: string;
      }
    ).secret;
    expect(otherSecret).not.toBe(secret);
    expect(hook.headers.get('webhook-signature')).not.toBe(await expectedSignature(otherSecret, id, timestamp, body));

    // Delivered again (a QStash retry): nothing is sent twice.
    expect((await deliver()).status).toBe(200);
    expect(hooks).toHaveLength(1);
  });

  it('a Slack-compatible body carries text', async () => {
    const { hooks, deliver } = await stageApproval({ approvals: { format: 'slack' } }, 200, {
      secrets: { notificationUrl: HOOK },
    });
    await deliver();
    const body = JSON.parse(await hooks[0]!.text()) as { text: string; event: { type: string } };
    expect(body.text).toContain('Approval needed');
    expect(body.event.type).toBe('approval.pending');
  });

  it("a Slack notification names the action and links to it: the contact's name and words are not in it", async () => {
    const name = '<!channel> <https://evil.example/x|Approve now>';
    const text = 'Please remove the interested tag from me <!here> <https://evil.example/y|Click>';
    const { tenantId, approvalId, hooks, deliver } = await stageApproval({ approvals: { format: 'slack' } }, 200, {
      contactName: name,
      text,
      secrets: { notificationUrl: HOOK },
    });
    await deliver();
    const raw = await hooks[0]!.text();
    const body = JSON.parse(raw) as { text: string; event: Record<string, unknown> };
    // No mention, no forged link, not even escaped: the contact's name and words stay out.
    for (const part of ['<!channel>', '<!here>', 'evil.example', 'Approve now', 'Please remove', '&lt;!'])
      expect(raw).not.toContain(part);
    expect(body.text).toContain('untag_contact');
    // The one link is the approval's review page in the dashboard.
    const links = [...body.text.matchAll(/<([^>|]+)\|([^>]+)>/g)].map((m) => m[1]);
    expect(links).toEqual([`${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/dashboard/approvals/${approvalId}/confirm`]);
    expect(body.event).toMatchObject({ type: 'approval.pending', tenantId, approvalId });
    expect(body.event.card).toBeUndefined();
  });

  it('a sealed Slack URL is in neither the config nor the outbox entry; the delivery opens it', async () => {
    const slackUrl = 'https://hooks.example.test/services/T000/B000/sealedSecretPart123';
    const { tenantId, turnId, hooks, deliver } = await stageApproval({ approvals: { format: 'slack' } }, 200, {
      secrets: { notificationUrl: slackUrl },
    });
    const k = tenantKeys(tenantId);
    const [config, secrets] = await session().pipeline((p) => {
      p.get(k.config);
      p.get(k.secrets);
    });
    for (const stored of [config, secrets, JSON.stringify(await outboxEntry(tenantId, turnId))])
      expect(String(stored)).not.toContain('sealedSecretPart123');
    expect((await deliver()).status).toBe(200);
    expect(hooks.map((h) => h.url)).toEqual([slackUrl]);
  });

  it('a Slack URL in plain text in the config is refused, naming where it goes instead', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const config = (await (await tenantApi(tenantId, adminSecret, 'GET', '/config')).json()) as Record<string, unknown>;
    const res = await tenantApi(tenantId, adminSecret, 'PUT', '/config', {
      ...config,
      notifications: { approvals: { url: 'https://hooks.slack.com/services/T0/B0/xyz', format: 'slack' } },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: string[] }).details.join(' ')).toMatch(
      /notifications\.approvals\.url: .*secret.*notificationUrl/,
    );
  });

  it('a notification whose sealed URL was removed is a dead letter that says so', async () => {
    const { tenantId, adminSecret, approvalId, hooks, deliver } = await stageApproval(
      { approvals: { format: 'slack' } },
      200,
    );
    await deliver();
    expect(hooks).toHaveLength(0);
    const res = await createApp().fetch(
      new Request(`http://worker.test/v1/outbox/dead-letters/${tenantId}`, {
        headers: { authorization: `Bearer ${adminSecret}` },
      }),
      workerEnv,
    );
    const { deadLetters } = (await res.json()) as { deadLetters: { actionId: string; detail: string }[] };
    expect(deadLetters.find((l) => l.actionId === `${approvalId}.notify`)?.detail).toContain('notification URL');
  });

  it('an endpoint that refuses for good leaves a dead letter with its words', async () => {
    const { tenantId, adminSecret, approvalId, deliver } = await stageApproval({ approvals: { url: HOOK } }, 410);
    await deliver();
    const res = await createApp().fetch(
      new Request(`http://worker.test/v1/outbox/dead-letters/${tenantId}`, {
        headers: { authorization: `Bearer ${adminSecret}` },
      }),
      workerEnv,
    );
    const { deadLetters } = (await res.json()) as {
      deadLetters: { actionId: string; state: string; detail: string }[];
    };
    expect(deadLetters.find((l) => l.actionId === `${approvalId}.notify`)).toMatchObject({
      state: 'dead',
      detail: expect.stringContaining('410'),
    });
  });

  it('a tenant without notifications commits nothing for an approval', async () => {
    const { tenantId, turnId } = await stageApproval(null);
    expect(await outboxEntry(tenantId, turnId)).toBeNull();
  });

  it('the config refuses a notification URL that is not http(s)', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const config = (await (await tenantApi(tenantId, adminSecret, 'GET', '/config')).json()) as Record<string, unknown>;
    const res = await tenantApi(tenantId, adminSecret, 'PUT', '/config', {
      ...config,
      notifications: { approvals: { url: 'ftp://x.example' } },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: string[] }).details.join(' ')).toContain('notifications.approvals.url');
  });
});
