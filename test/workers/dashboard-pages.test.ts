import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { createApp } from '../../src/app.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { DashboardClient, formFields } from '../support/dashboard-client.js';
import { newContact, seedTenant, session, uniqueId, workerEnv } from '../support/workers-env.js';
import { expireDueApprovals } from '../../src/approvals/decide-approval.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

async function dashboardTenant(overrides = {}) {
  const t = await seedTenant(overrides);
  const password = `pw-${uniqueId('p')}`;
  await setDashboardUser(session(), t.tenantId, 'owner', password);
  return { ...t, password };
}

async function login(t: { tenantId: string; password: string }, client = new DashboardClient()) {
  expect((await client.login(t.tenantId, 'owner', t.password)).status).toBe(303);
  return client;
}

const stored = async (tenantId: string) => parseJson(await session().one((r) => r.get(tenantKeys(tenantId).config))) as Record<string, unknown>;

/** The setup form as the page renders it, with some fields changed, posted to the review step. */
async function review(client: DashboardClient, change: Record<string, string>) {
  const { html } = await client.page('/dashboard/setup');
  const fields = { ...formFields(html, '/dashboard/setup/preview'), ...change };
  const res = await client.request('POST', '/dashboard/setup/preview', fields);
  return { res, html: await res.text() };
}

async function saveReviewed(client: DashboardClient, reviewHtml: string) {
  return client.request('POST', '/dashboard/setup/save', formFields(reviewHtml, '/dashboard/setup/save'));
}

describe('setup', () => {
  it('links to the ManyChat walkthrough, served with the tenant\'s own webhook URL', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    expect((await client.page('/dashboard/setup')).html).toContain('href="/dashboard/setup/manychat"');
    const { html } = await client.page('/dashboard/setup/manychat');
    expect(html).toContain(`/v1/manychat/${t.tenantId}</code>`);
    // The README's section itself: the request template with ManyChat's variables, and the response mapping.
    expect(html).toContain('{{Full Contact Data}}');
    expect(html).toContain('# ManyChat setup');
    expect(html).not.toContain('&lt;!-- Generated');
    expect((await new DashboardClient().request('GET', '/dashboard/setup/manychat')).status).toBe(303);
  });

  it('an invalid tool order is refused with its error next to the field and nothing saved; fixed, it is shown as a diff and saved', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const before = await stored(t.tenantId);
    const bad = await review(client, { toolOrder: 'search_faq\nno_such_tool' });
    expect(bad.res.status).toBe(400);
    const errorBlock = /<div id="f-toolOrder-error" class="error" role="alert">([\s\S]*?)<\/div>/.exec(bad.html)?.[1] ?? '';
    expect(errorBlock).toContain('toolOrder names &quot;no_such_tool&quot;, which is not a tool');
    expect(errorBlock).toContain('exactly once');
    expect(bad.html).toMatch(/id="f-toolOrder" name="toolOrder" aria-describedby="f-toolOrder-error" aria-invalid="true"/);
    expect(await stored(t.tenantId)).toEqual(before);

    const good = await review(client, { toolOrder: 'search_faq\n<unlisted-tools>' });
    expect(good.res.status).toBe(200);
    expect(good.html).toContain('<ins>+   &quot;toolOrder&quot;: [\n</ins>');
    expect(good.html).toContain('<ins>+     &quot;search_faq&quot;,\n</ins>');
    expect(await stored(t.tenantId)).toEqual(before);
    const saved = await saveReviewed(client, good.html);
    expect(saved.headers.get('location')).toBe('/dashboard/setup?saved=config');
    expect((await stored(t.tenantId)).toolOrder).toEqual(['search_faq', '<unlisted-tools>']);
  });

  it('adds a flow through the empty row; a half-filled row gets its error next to the missing field', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const half = await review(client, { 'flows.3.name': 'price_list', 'flows.3.description': 'the 2027 price list' });
    expect(half.res.status).toBe(400);
    expect(half.html).toMatch(/<div id="f-flows-3-ns-error" class="error" role="alert"><p>flows\.3\.ns: /);
    const full = await review(client, { 'flows.3.name': 'price_list', 'flows.3.ns': 'content20270101_1', 'flows.3.description': 'the 2027 price list', 'flows.3.keywords': 'prices, 2027' });
    expect(full.res.status).toBe(200);
    await saveReviewed(client, full.html);
    expect((await stored(t.tenantId)).flows).toContainEqual({ name: 'price_list', ns: 'content20270101_1', description: 'the 2027 price list', keywords: ['prices', '2027'] });
  });

  it('shows zod and cross-field problems next to their fields (deadline; a manifest rule; the handoff tag)', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const deadline = await review(client, { deadlineMs: '50' });
    expect(deadline.res.status).toBe(400);
    expect(deadline.html).toMatch(/id="f-deadlineMs-error"[^>]*><p>deadlineMs: /);
    // Manifest rows follow the tools: row 5 is search_faq (a read tool), which cannot have confirm;
    // removing the handoff's tag leaves handoff.tag naming a tag that is not configured.
    const rules = await review(client, { 'manifest.5.confirm': 'once', 'tags.1.remove': 'yes' });
    expect(rules.res.status).toBe(400);
    expect(rules.html).toMatch(/id="f-manifest-5-effect-error"[^>]*><p>tool &quot;search_faq&quot;: confirm is only for write tools/);
    expect(rules.html).toMatch(/id="f-handoff-tag-error"[^>]*><p>handoff\.tag &quot;human_handoff&quot; is not a configured tag/);
  });

  it('a save that races another is refused by the revision check; the first one stands', async () => {
    const t = await dashboardTenant();
    const first = await login(t);
    const second = await login(t);
    const a = await review(first, { displayName: 'First editor' });
    const b = await review(second, { displayName: 'Second editor' });
    expect((await saveReviewed(first, a.html)).status).toBe(303);
    const raced = await saveReviewed(second, b.html);
    expect(raced.status).toBe(409);
    expect(await raced.text()).toContain('changed by someone else');
    expect((await stored(t.tenantId)).displayName).toBe('First editor');
  });

  it('a deeply nested config posted to the save (and replay) step is a 400 naming the problem, not a 500; nothing is saved', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const before = await stored(t.tenantId);
    const { html } = await client.page('/dashboard/setup');
    const rev = /name="rev" value="(\d+)"/.exec(html)![1]!;
    const deep = `{"persona":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const res = await client.post('/dashboard/setup/save', { rev, config: deep });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('deeper than 64 levels');
    expect(await stored(t.tenantId)).toEqual(before);
    const guardrails = await client.post('/dashboard/setup/preview', { ...formFields(html, '/dashboard/setup/preview'), guardrails: `{"content":${'['.repeat(5000)}${']'.repeat(5000)}}` });
    expect(guardrails.status).toBeLessThan(500);
  });

  it('never saves an invalid config, even one posted straight to the save step', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const before = await stored(t.tenantId);
    const { html } = await client.page('/dashboard/setup');
    const rev = /name="rev" value="(\d+)"/.exec(html)![1]!;
    const res = await client.post('/dashboard/setup/save', { rev, config: JSON.stringify({ ...before, toolOrder: ['reply'] }) });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('f-toolOrder-error');
    expect(await stored(t.tenantId)).toEqual(before);
  });
});

describe('approvals, turns, health', () => {
  async function destructiveTurn(t: { tenantId: string; secret: string }) {
    const contactId = await newContact();
    const model = scriptedModel([{ calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }], reply: reply('A team member will review removing the tag.') }]);
    const res = await appWith(model).post(t.tenantId, t.secret, { contact: { id: contactId, first_name: 'Ada' }, text: 'please remove my interested tag' });
    return turnRecord(t.tenantId, res.headers.get('x-turn-id')!);
  }

  it('a card shows what, for whom, the undo, the words and the pinned call; approve needs the confirm step and commits exactly the pinned call', async () => {
    const t = await dashboardTenant();
    const record = await destructiveTurn(t);
    const id = record.approvals[0]!;
    const client = await login(t);
    const { html } = await client.page('/dashboard/approvals');
    expect(html).toContain(record.contactId);
    expect(html).toContain('the tool &quot;tag_contact&quot; reverses it');
    expect(html).toContain('please remove my interested tag');
    expect(html).toContain('<summary>The exact pinned call</summary>');
    expect(html).toContain('untag_contact({&quot;tag&quot;:&quot;interested&quot;})');
    expect(html).toMatch(/\d+ min left/);
    // Without the confirm step's field, approve only leads to the confirm page.
    const stray = await client.post(`/dashboard/approvals/${id}/approve`);
    expect(stray.headers.get('location')).toBe(`/dashboard/approvals/${id}/confirm`);
    expect((await loadPinned(session(), t.tenantId, id))?.status).toBe('pending');
    const confirm = await client.page(`/dashboard/approvals/${id}/confirm`);
    const approved = await client.request('POST', `/dashboard/approvals/${id}/approve`, formFields(confirm.html, `/dashboard/approvals/${id}/approve`));
    expect(approved.headers.get('location')).toBe('/dashboard/approvals?result=approved');
    expect((await loadPinned(session(), t.tenantId, id))?.status).toBe('approved');
    expect((await outboxEntry(t.tenantId, id))?.actions.map((a) => [a.kind, a.args])).toEqual([['remove_tag', { tag: 'interested' }]]);
    const again = await client.post(`/dashboard/approvals/${id}/approve`, { confirm: 'yes' });
    expect(again.headers.get('location')).toBe('/dashboard/approvals?result=already-decided');
    // Decided, it has left the queue but is still shown, as approved, with no buttons.
    const after = await client.page('/dashboard/approvals');
    expect(after.html).toContain(`<article class="card approved" aria-labelledby="${id}-title">`);
    expect(after.html).not.toContain(`/dashboard/approvals/${id}/confirm`);
  });

  it('an approval the cron expired is shown as expired, with nothing to press', async () => {
    const t = await dashboardTenant();
    const record = await destructiveTurn(t);
    const id = record.approvals[0]!;
    const noPublish = { publish: async () => {} };
    // The cron's expiry, run as if its hour had passed.
    const later = new Date(Date.now() + 2 * 3600 * 1000);
    expect(await expireDueApprovals({ session: session(), publisher: noPublish, pinSecret: workerEnv.SESSION_SECRET!, now: later }, t.tenantId)).toBe(1);
    const client = await login(t);
    const { html } = await client.page('/dashboard/approvals');
    expect(html).toContain(`<article class="card expired" aria-labelledby="${id}-title">`);
    expect(html).toContain('<span class="badge expired">expired</span>');
    expect(html).not.toContain(`/dashboard/approvals/${id}/confirm`);
    const confirm = await client.request('GET', `/dashboard/approvals/${id}/confirm`);
    expect(confirm.headers.get('location')).toBe('/dashboard/approvals?result=expired');
  });

  it("a vetoed turn's page shows the guardrail's verdict and reason; the log finds it by decision", async () => {
    const t = await dashboardTenant({ guardrails: { content: { denyPhrases: ['guaranteed weight loss'] } } });
    const contactId = await newContact();
    const model = scriptedModel([{ calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Absolutely: guaranteed weight loss in two weeks!') }]);
    const res = await appWith(model).post(t.tenantId, t.secret, { contact: { id: contactId }, text: 'Will yoga make me lose weight? Send me the brochure' });
    const turnId = res.headers.get('x-turn-id')!;
    const client = await login(t);
    const { html } = await client.page(`/dashboard/turns/${turnId}`);
    expect(html).toContain('<span class="badge veto">veto</span>');
    expect(html).toMatch(/<td>content<\/td><td><span class="badge veto">veto<\/span><\/td><td>the reply contains the denied phrase &quot;guaranteed weight loss&quot;<\/td>/);
    expect(html).toContain('Will yoga make me lose weight? Send me the brochure');
    expect(html).toContain('Nothing was committed for this turn.');
    const log = await client.page('/dashboard/turns?decision=veto');
    expect(log.html).toContain(turnId);
    const passes = await client.page('/dashboard/turns?decision=pass');
    expect(passes.html).not.toContain(turnId);
    const health = await client.page('/dashboard/health');
    expect(health.html).toContain('<svg');
    expect(health.html).toMatch(/<td>content<\/td><td>1<\/td><td>0<\/td>/);
  });
});

describe('Try it', () => {
  it('runs the real turn for a test contact and commits nothing unless asked', async () => {
    const t = await dashboardTenant();
    const model = scriptedModel([
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here is the brochure!') },
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here is the brochure!') },
    ]);
    const app = createApp((s) => ({ ...s, model: () => ({ model, modelId: 'scripted-model', offline: false }) }));
    const client = await login(t, new DashboardClient(app));
    await client.page('/dashboard/try');
    const contactId = `try-${uniqueId('c')}`;
    const dry = await client.post('/dashboard/try', { text: 'Send me the brochure', contactId });
    const dryHtml = await dry.text();
    expect(dry.status).toBe(200);
    expect(dryHtml).toContain('Dry run: nothing was committed or performed.');
    expect(dryHtml).toContain('Here is the brochure!');
    expect(dryHtml).toMatch(/Would commit: send flow/);
    expect(await session().one((r) => r.zcard(tenantKeys(t.tenantId).contactTurns(contactId)))).toBe(0);
    const performed = await client.post('/dashboard/try', { text: 'Send me the brochure', contactId, perform: 'yes' });
    const performedHtml = await performed.text();
    expect(performedHtml).toContain('Performed: the turn was committed for the test contact.');
    const turnId = /href="\/dashboard\/turns\/(turn_[0-9a-f]+)"/.exec(performedHtml)![1]!;
    expect((await outboxEntry(t.tenantId, turnId))?.actions.map((a) => a.kind)).toEqual(['send_flow']);
    const empty = await client.post('/dashboard/try', { text: '  ', contactId });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain('id="try-text-error"');
  });
});

describe('API reference', () => {
  it('is an OpenAPI 3.1 document drawn from the zod schemas, and every operation it lists is a real route', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const res = await client.request('GET', '/dashboard/api/openapi.json');
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>> };
    expect(doc.openapi).toBe('3.1.0');
    const configSchema = doc.paths['/v1/tenants/{tenant}/config']!.put!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(configSchema.properties ?? {})).toEqual(expect.arrayContaining(['persona', 'flows', 'manifest', 'toolOrder', 'guardrails', 'handoff', 'deadlineMs']));
    const app = createApp();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const url = path.replace('{tenant}', t.tenantId).replace('{id}', `ap_${'0'.repeat(32)}`).replace('{contact}', '42');
        // No credentials: a real route answers 401; a path the Worker does not serve would be 404.
        const answer = await app.fetch(new Request(`https://worker.test${url}`, { method: method.toUpperCase() }), workerEnv);
        expect(answer.status, `${method.toUpperCase()} ${path}`).toBe(401);
      }
    }
  });
});
