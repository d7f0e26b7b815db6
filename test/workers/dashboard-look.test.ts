import { describe, expect, it } from 'vitest';
import { PAGE_INBOX_APP_ID } from '../../core/tenant/tenant-config.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { countDeliveryFailure, hourOf, latencyBucket, readHourlyMetrics } from '../../core/storage/turn-metrics.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { writeTurnCommit } from '../../outbox/commit.js';
import { deliverOutboxEntry } from '../../outbox/deliver-entry.js';
import type { ChannelApis } from '../../core/actions/channel-api.js';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { healthWindows, histogramPercentile } from '../../src/dashboard/health/metric-series.js';
import { readAudit } from '../../src/tenants/audit-log.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { newContact, seedTenant, session, uniqueId } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';
import {
  deliverMessenger,
  newPsid,
  postMessenger,
  seedMessengerTenant,
  sentTo,
  textItem,
  turnIds,
  webhookBody,
} from './messenger-helpers.js';

/**
 * Issue 32, "look, not read": Health's trend charts over 24 h and 7 days from an hourly
 * aggregate, a contact's whole conversation, and the handoff inbox with its release button.
 */
const HOUR = 3_600_000;
/** A fixed instant (not today's date): the aggregation is read as of here. */
const NOW = Date.parse('2026-03-10T15:20:00.000Z');

async function login(tenantId: string) {
  const password = `pw-${uniqueId('p')}`;
  await setDashboardUser(session(), tenantId, 'owner', password);
  const client = new DashboardClient();
  expect((await client.login(tenantId, 'owner', password)).status).toBe(303);
  return client;
}

/** The least a committed record needs for the aggregate: its time, decision, deferral and latency. */
function record(
  tenantId: string,
  at: number,
  decision: TurnRecord['decision'],
  totalMs: number,
  deferred = false,
): TurnRecord {
  const turnId = `turn_${crypto.randomUUID().replace(/-/g, '')}`;
  return {
    turnId,
    tenantId,
    contactId: 'c1',
    messageKey: turnId,
    inbound: {
      tenantId,
      channel: 'manychat',
      contactId: 'c1',
      messageKey: turnId,
      text: 'hi',
    } as TurnRecord['inbound'],
    modelId: 'm',
    steps: [],
    modelReply: null,
    staged: [],
    verdicts: [],
    decision,
    decisionReason: '',
    reply: { text: 'hello', quickReplies: [] },
    committed: [],
    pendingConfirmation: null,
    approvals: [],
    deferred,
    timings: { totalMs, loadMs: 0, modelMs: 0, guardrailsMs: 0, commitMs: 0 },
    redisRoundTrips: { beforeModel: 0, afterModel: 0 },
    startedAt: new Date(at).toISOString(),
    finishedAt: new Date(at + totalMs).toISOString(),
    notes: [],
  };
}

const commit = (r: TurnRecord) =>
  writeTurnCommit(session(), { record: r, entry: null, history: [], historyLimit: 10, handoffUntil: null, pinned: [] });

describe('the hourly aggregate behind the Health charts', () => {
  it('counts each committed turn once in its hour: decisions, deferred, latency buckets; delivery failures apart', async () => {
    const { tenantId } = await seedTenant();
    const thisHour = NOW - 10 * 60_000;
    const fiveHoursAgo = NOW - 5 * HOUR;
    const threeDaysAgo = NOW - 3 * 24 * HOUR;
    const records = [
      record(tenantId, thisHour, 'pass', 800),
      record(tenantId, thisHour, 'pass', 1200),
      record(tenantId, thisHour, 'veto', 2600, true),
      record(tenantId, thisHour, 'escalate', 9500, true),
      record(tenantId, fiveHoursAgo, 'pass', 400),
      record(tenantId, threeDaysAgo, 'error', 70_000),
      record(tenantId, NOW - 8 * 24 * HOUR, 'pass', 100), // outside the 7 days
    ];
    for (const r of records) expect(await commit(r)).toBe(true);
    // The same record committed again writes nothing: counted once.
    expect(await commit(records[0]!)).toBe(false);
    await countDeliveryFailure(session(), tenantId, new Date(thisHour));
    await countDeliveryFailure(session(), tenantId, new Date(threeDaysAgo));
    await countDeliveryFailure(session(), tenantId, new Date(threeDaysAgo + 60_000));

    const hours = await readHourlyMetrics(session(), tenantId, NOW, 168);
    expect(hours).toHaveLength(168);
    expect(hours.at(-1)!.hour).toBe(hourOf(NOW));
    const now = hours.at(-1)!;
    expect(now).toMatchObject({ turns: 4, pass: 2, veto: 1, escalate: 1, error: 0, deferred: 2, deliveryFailures: 1 });
    expect(now.latency[latencyBucket(800)]).toBe(1);
    expect(now.latency[latencyBucket(9500)]).toBe(1);
    expect(hours.at(-6)).toMatchObject({ turns: 1, pass: 1 });
    // The hash expires (8 days), it is not kept for ever.
    const ttl = await session().one((r) => r.ttl(tenantKeys(tenantId).metricsHour(hourOf(thisHour))));
    expect(ttl).toBeGreaterThan(7 * 24 * 3600);
    expect(ttl).toBeLessThanOrEqual(8 * 24 * 3600);

    const [day, week] = healthWindows(hours);
    expect(day!.points).toHaveLength(24);
    expect(day!.total).toMatchObject({ turns: 5, pass: 3, veto: 1, escalate: 1, deliveryFailures: 1 });
    expect(day!.total.deferredShare).toBeCloseTo(2 / 5);
    // p50 of 400, 800, 1200, 2600, 9500 is 1200: its bucket's bound; p95 is the 9500 ms turn's bucket.
    expect(day!.total.p50).toBe(1500);
    expect(day!.total.p95).toBe(10_000);
    expect(day!.points.at(-1)).toMatchObject({ turns: 4, p50: 1500, p95: 10_000 });
    expect(week!.points).toHaveLength(7);
    expect(week!.total).toMatchObject({ turns: 6, error: 1, deliveryFailures: 3 });
    // The 70 s turn is past the last bound: its p95 is "over", not a made-up number.
    expect(week!.points.find((p) => p.error === 1)!.p95).toBe(Infinity);
  });

  it('a real turn through the app is counted, and an action that dies in delivery is counted as a failure', async () => {
    const t = await seedTenant();
    const contactId = await newContact();
    const res = await appWith(
      scriptedModel([{ calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here it is.') }]),
    ).post(t.tenantId, t.secret, { contact: { id: contactId }, text: 'Send me the brochure' });
    const turnId = res.headers.get('x-turn-id')!;
    const turn = await turnRecord(t.tenantId, turnId);
    const at = Date.parse(turn.startedAt);
    const [hour] = await readHourlyMetrics(session(), t.tenantId, at, 1);
    expect(hour).toMatchObject({ turns: 1, pass: 1 });
    // ManyChat refuses the flow for good: dead, and counted in the hour delivery learnt it.
    const refusing = {
      manychat: new Proxy(
        {},
        { get: () => async () => ({ ok: false, kind: 'permanent', status: 400, message: 'flow not found' }) },
      ),
    } as unknown as ChannelApis;
    const deliveredAt = new Date(at + 2 * HOUR);
    const delivery = await deliverOutboxEntry({
      session: session(),
      tenantId: t.tenantId,
      turnId,
      apis: refusing,
      now: () => deliveredAt,
    });
    expect(delivery.actions.map((a) => a.state)).toEqual(['dead']);
    const later = await readHourlyMetrics(session(), t.tenantId, deliveredAt.getTime(), 3);
    expect(later.map((h) => h.deliveryFailures)).toEqual([0, 0, 1]);
  });

  it('nearest-rank percentile of a histogram: the bound of the bucket holding the rank', () => {
    expect(histogramPercentile([0, 0, 0], 50)).toBeNull();
    expect(histogramPercentile([1, 0, 3], 50)).toBe(500);
    expect(histogramPercentile([19, 1], 95)).toBe(100);
    expect(histogramPercentile([18, 2], 95)).toBe(250);
  });
});

describe('Health renders the trends as SVG', () => {
  it('draws p50/p95, decisions, deferred share and failures with the values the aggregate holds; 7 days by day', async () => {
    const { tenantId } = await seedTenant();
    const at = Date.now();
    for (const r of [
      record(tenantId, at, 'pass', 700),
      record(tenantId, at, 'pass', 700),
      record(tenantId, at, 'veto', 4500, true),
      record(tenantId, at, 'escalate', 4500),
    ])
      await commit(r);
    await countDeliveryFailure(session(), tenantId, new Date(at));
    await countDeliveryFailure(session(), tenantId, new Date(at));
    const client = await login(tenantId);
    const { res, html } = await client.page('/dashboard/health');
    expect(res.status).toBe(200);
    const chart = (id: string) => new RegExp(`<svg[^>]*data-chart="${id}"[\\s\\S]*?</svg>`).exec(html)?.[0] ?? '';
    const marks = (svg: string) =>
      [...svg.matchAll(/data-(?:series|label)="([^"]*)"[^>]*?data-value="([^"]*)"/g)].map((m) => m[2]);
    const latency = chart('latency-p50-and-p95-ms-last-24-hours');
    expect(latency).toContain('<title');
    expect(latency).toMatch(/<g data-series="p50">[\s\S]*?data-value="750"/);
    expect(latency).toMatch(/<g data-series="p95">[\s\S]*?data-value="5000"/);
    const decisions = chart('decisions-last-24-hours');
    expect(decisions).toMatch(/data-series="pass"[^>]*data-value="2"/);
    expect(decisions).toMatch(/data-series="veto"[^>]*data-value="1"/);
    expect(decisions).toMatch(/data-series="escalate"[^>]*data-value="1"/);
    expect(marks(chart('deferred-share-last-24-hours'))).toContain('0.25');
    expect(chart('delivery-failures-dead-or-unknown-last-24-hours')).toMatch(/data-series="failed"[^>]*data-value="2"/);
    // The description names the values for a screen reader.
    expect(decisions).toMatch(/<desc[^>]*>[^<]*pass 2, veto 1, escalate 1, error 0/);
    expect(html).toContain('<strong>4</strong> turns — 2 passed, 1 vetoed, 1 escalated');
    // Another tenant's page shows none of it.
    const other = await seedTenant();
    const empty = (await (await login(other.tenantId)).page('/dashboard/health')).html;
    expect(empty).toContain('<strong>0</strong> turns');
    expect(empty).not.toMatch(/data-series="pass"[^>]*data-value=/);
    const week = (await client.page('/dashboard/health?window=7d')).html;
    expect(week).toContain('data-chart="decisions-last-7-days"');
    expect([...week.matchAll(/data-series="pass" data-label="(\d\d-\d\d)"/g)].map((m) => m[1])).toEqual([
      new Date(at).toISOString().slice(5, 10),
    ]);
  });
});

describe('a contact’s conversation', () => {
  it('shows the messages, replies and actions across turns for one contact, oldest first, linked from the turn page and Turns', async () => {
    const t = await seedTenant();
    const contactId = await newContact();
    const someoneElse = await newContact();
    const app = appWith(
      scriptedModel([
        { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here is the brochure.') },
        { reply: reply('We open at 7 am.') },
        { reply: reply('Not for you.') },
      ]),
    );
    const first = (
      await app.post(t.tenantId, t.secret, { contact: { id: contactId }, text: 'Send me the brochure' })
    ).headers.get('x-turn-id')!;
    await app.post(t.tenantId, t.secret, { contact: { id: contactId }, text: 'When do you open?' });
    await app.post(t.tenantId, t.secret, { contact: { id: someoneElse }, text: 'A secret of mine' });
    const client = await login(t.tenantId);
    const { res, html } = await client.page(`/dashboard/contacts/${contactId}`);
    expect(res.status).toBe(200);
    const brochure = html.indexOf('Send me the brochure');
    const open = html.indexOf('When do you open?');
    expect(brochure).toBeGreaterThan(0);
    expect(open).toBeGreaterThan(brochure);
    expect(html).toContain('Here is the brochure.');
    expect(html).toContain('We open at 7 am.');
    expect(html).not.toContain('A secret of mine');
    // The action with its delivery state, as the ledger holds it (not delivered yet here: pending).
    const entry = (await outboxEntry(t.tenantId, first))!;
    const action = entry.actions.find((a) => a.kind !== 'send_content') ?? entry.actions[0]!;
    expect(html).toContain(`${action.summary.replace(/"/g, '&quot;')} <span class="badge pending">pending</span>`);
    expect(html).toContain(`href="/dashboard/turns/${first}"`);
    // Linked from the turn page and from the Turns list.
    expect((await client.page(`/dashboard/turns/${first}`)).html).toContain(`href="/dashboard/contacts/${contactId}"`);
    expect((await client.page('/dashboard/turns')).html).toContain(`href="/dashboard/contacts/${contactId}"`);
    // Tenant-isolated: another tenant's dashboard does not find this contact.
    const other = await seedTenant();
    const stranger = await login(other.tenantId);
    expect((await stranger.page(`/dashboard/contacts/${contactId}`)).res.status).toBe(404);
    expect((await client.page('/dashboard/contacts/bad%20id%3F')).res.status).toBe(400);
  });
});

describe('the handoff inbox', () => {
  it('lists contacts waiting for a person; release (CSRF-checked) ends the silence, audited; other tenants see none', async () => {
    const t = await seedTenant({
      handoff: { tag: 'human_handoff', reply: 'A teammate will reply.', silenceMinutes: 60 },
    });
    const contactId = await newContact();
    const app = appWith(
      scriptedModel([{ reply: reply('Let me get a person.', { escalate: true, reason: 'wants a refund' }) }]),
    );
    await app.post(t.tenantId, t.secret, { contact: { id: contactId }, text: 'I want my money back' });
    const client = await login(t.tenantId);
    const inbox = (await client.page('/dashboard/handoffs')).html;
    expect(inbox).toContain(`href="/dashboard/contacts/${contactId}"`);
    expect(inbox).toContain('I want my money back');
    expect(inbox).toContain(`Release ${contactId}`);
    expect(inbox).toContain('name="_csrf"');
    // Another tenant's inbox is empty, and it cannot release this contact.
    const other = await seedTenant();
    const stranger = await login(other.tenantId);
    expect((await stranger.page('/dashboard/handoffs')).html).toContain('No contact is waiting for a person.');
    await stranger.page('/dashboard/handoffs');
    const foreign = await stranger.post(`/dashboard/contacts/${contactId}/release`, { back: 'inbox' });
    expect(foreign.headers.get('location')).toBe('/dashboard/handoffs?released=no');
    expect(await session().one((r) => r.exists(tenantKeys(t.tenantId).handoff(contactId)))).toBe(1);
    // Without the page's CSRF token: refused, the silence stays.
    const forged = await client.request('POST', `/dashboard/contacts/${contactId}/release`, { back: 'inbox' });
    expect(forged.status).toBe(403);
    expect(await session().one((r) => r.exists(tenantKeys(t.tenantId).handoff(contactId)))).toBe(1);
    // Released from the inbox: back to the inbox, which no longer lists the contact.
    await client.page('/dashboard/handoffs');
    const released = await client.post(`/dashboard/contacts/${contactId}/release`, { back: 'inbox' });
    expect(released.status).toBe(303);
    expect(released.headers.get('location')).toBe('/dashboard/handoffs?released=yes');
    expect(await session().one((r) => r.exists(tenantKeys(t.tenantId).handoff(contactId)))).toBe(0);
    const after = (await client.page('/dashboard/handoffs?released=yes')).html;
    expect(after).toContain('Released: the agent answers this contact again.');
    expect(after).not.toContain(`Release ${contactId}`);
    const audit = await readAudit(session(), t.tenantId, { offset: 0, limit: 5 });
    expect(audit.entries.map((e) => e.action)).toContain('handoff.released');
  });

  it('a contact released through the tenant API leaves the inbox too', async () => {
    const t = await seedTenant({
      handoff: { tag: 'human_handoff', reply: 'A teammate will reply.', silenceMinutes: 60 },
    });
    const contactId = await newContact();
    const app = appWith(scriptedModel([{ reply: reply('A person will help.', { escalate: true, reason: 'asks' }) }]));
    await app.post(t.tenantId, t.secret, { contact: { id: contactId }, text: 'Can I talk to someone?' });
    const client = await login(t.tenantId);
    expect((await client.page('/dashboard/handoffs')).html).toContain(`Release ${contactId}`);
    const res = await app.fetch(
      new Request(`http://worker.test/v1/tenants/${t.tenantId}/contacts/${contactId}/release`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminSecret}` },
      }),
    );
    expect(res.status).toBe(200);
    expect((await client.page('/dashboard/handoffs')).html).toContain('No contact is waiting for a person.');
  });

  it('on Messenger, the release button takes the thread back from the Page Inbox', async () => {
    const t = await seedMessengerTenant({ messenger: { handoverAppId: PAGE_INBOX_APP_ID } });
    const psid = await newPsid(t);
    const app = appWith(
      scriptedModel([{ reply: reply('A teammate will pick this up.', { escalate: true, reason: 'refund' }) }]),
    );
    await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_1`, 'I want a refund', Date.now())]));
    await app.settle();
    const [first] = await turnIds(t.tenantId);
    await deliverMessenger(t, first!);
    const client = await login(t.tenantId);
    expect((await client.page('/dashboard/handoffs')).html).toContain(`Release ${psid}`);
    const released = await client.post(`/dashboard/contacts/${psid}/release`, { back: 'contact' });
    expect(released.headers.get('location')).toBe(`/dashboard/contacts/${psid}?released=yes`);
    expect((await sentTo(psid)).at(-1)?.body).toEqual({ recipient: { id: psid }, metadata: 'released by the tenant' });
  });
});
