import { describe, expect, inject, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { createApp } from '../../src/app.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { DashboardClient, formFields } from '../support/dashboard-client.js';
import { newContact, seedTenant, session, uniqueId, workerEnv } from '../support/workers-env.js';
import { expireDueApprovals } from '../../src/approvals/decide-approval.js';
import { setTenantStatus } from '../../src/tenants/provisioning.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';
import { deadLetterFor } from '../../outbox/dead-letters.js';
import { claimAction, markDead, markDone, markUnknown, releaseClaim } from '../../outbox/ledger.js';

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

const stored = async (tenantId: string) =>
  parseJson(await session().one((r) => r.get(tenantKeys(tenantId).config))) as Record<string, unknown>;

/** The setup form as the page renders it, with some fields changed, posted to the review step. */
async function review(client: DashboardClient, change: Record<string, string>, section = 'persona') {
  const { html } = await client.page(`/dashboard/setup/${section}`);
  const fields = { ...formFields(html, '/dashboard/setup/preview'), ...change };
  const res = await client.request('POST', '/dashboard/setup/preview', fields);
  return { res, html: await res.text() };
}

async function saveReviewed(client: DashboardClient, reviewHtml: string) {
  return client.request('POST', '/dashboard/setup/save', formFields(reviewHtml, '/dashboard/setup/save'));
}

/** A ManyChat page of its own in the sandbox (flows with titles, tags, fields), and its key. */
async function sandboxPage() {
  const pageId = String(3_000_000 + Math.floor(Math.random() * 900_000));
  const apiKey = `${pageId}:import-test-key`;
  const res = await fetch(`${inject('manychatUrl')}/__sandbox/pages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      pageId,
      apiKey,
      flows: ['content20261101000000_000101', 'content20261101000000_000102'],
      flowNames: { content20261101000000_000101: 'Studio tour', content20261101000000_000102: 'Price list 2027' },
      tags: [
        { id: 1, name: 'vip' },
        { id: 2, name: 'trial_booked' },
      ],
      customFields: [
        { id: 7, name: 'plan', type: 'text' },
        { id: 8, name: 'seen_at', type: 'datetime' },
      ],
    }),
  });
  expect(res.ok).toBe(true);
  return { pageId, apiKey };
}

const errorOf = (html: string, field: string) =>
  new RegExp(`<div id="f-${field}-error" class="error" role="alert">([\\s\\S]*?)</div>`).exec(html)?.[1] ?? '';

describe('setup', () => {
  it('is split into sections a person can find, each its own page', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const { html } = await client.page('/dashboard/setup');
    for (const section of ['persona', 'catalogue', 'tools', 'guardrails', 'handoff', 'channels', 'secrets']) {
      expect(html).toContain(`href="/dashboard/setup/${section}"`);
      expect((await client.page(`/dashboard/setup/${section}`)).res.status, section).toBe(200);
    }
    expect((await client.page('/dashboard/setup/nowhere')).res.status).toBe(404);
    // The persona page holds the persona, not the flows; the catalogue holds the flows.
    const persona = (await client.page('/dashboard/setup/persona')).html;
    expect(persona).toContain('name="persona"');
    expect(persona).not.toContain('name="flows.0.ns"');
    expect((await client.page('/dashboard/setup/catalogue')).html).toContain('name="flows.0.ns"');
  });

  it("Connect ManyChat is rendered HTML with the tenant's own webhook URL and template, and copy buttons", async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const old = await client.request('GET', '/dashboard/setup/manychat');
    expect(old.status).toBe(301);
    expect(old.headers.get('location')).toBe('/dashboard/setup/channels');
    const { res, html } = await client.page('/dashboard/setup/channels');
    expect(html).toMatch(new RegExp(`<code id="webhook-url"[^>]*>https?://[^<]+/v1/manychat/${t.tenantId}</code>`));
    expect(html).toMatch(
      /<pre id="request-body"[^>]*>\{\n  &quot;channel&quot;: &quot;instagram&quot;,\n  &quot;contact&quot;: \{\{Full Contact Data\}\}/,
    );
    expect(html).not.toContain('last_input_text');
    expect(html).toContain('data-copy="webhook-url"');
    expect(html).toContain('data-copy="request-body"');
    expect(html).toContain('<script src="/dashboard/copy.js" defer=""></script>');
    // Not Markdown: no heading marks, no bold stars, no generated-file comment.
    expect(html).not.toContain('# ManyChat setup');
    expect(html).not.toContain('**');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await client.request('GET', '/dashboard/copy.js')).headers.get('content-type')).toContain('javascript');
    expect((await new DashboardClient().request('GET', '/dashboard/setup/channels')).status).toBe(303);
  });

  it('rotates the webhook secret from the dashboard: the new one is shown once, the old one works through the overlap', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    await client.page('/dashboard/setup/channels');
    const res = await client.post('/dashboard/setup/channels/rotate', { overlapMinutes: '30' });
    expect(res.status).toBe(200);
    const html = await res.text();
    const fresh = /<code id="new-secret"[^>]*>([^<]+)<\/code>/.exec(html)?.[1];
    expect(fresh).toMatch(/\S{20,}/);
    expect(html).toContain('keeps working until');
    const post = (secret: string) =>
      appWith(scriptedModel([{ reply: reply('Hi!') }])).post(t.tenantId, secret, {
        contact: { id: `${Date.now()}` },
        text: 'hello',
      });
    expect((await post(fresh!)).status).toBe(200);
    expect((await post(t.secret)).status).toBe(200);
    expect((await post('not-the-secret')).status).toBe(401);
    // The page shown again does not show the secret.
    expect((await client.page('/dashboard/setup/channels')).html).not.toContain(fresh!);
    const bad = await client.post('/dashboard/setup/channels/rotate', { overlapMinutes: 'soon' });
    expect(bad.status).toBe(400);
  });

  it('an invalid tool order is refused with its error next to the field and nothing saved; fixed, it is shown as a diff and saved', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const before = await stored(t.tenantId);
    const bad = await review(client, { toolOrder: 'search_faq\nno_such_tool' }, 'tools');
    expect(bad.res.status).toBe(400);
    const errorBlock = errorOf(bad.html, 'toolOrder');
    expect(errorBlock).toContain('toolOrder names &quot;no_such_tool&quot;, which is not a tool');
    expect(errorBlock).toContain('exactly once');
    expect(bad.html).toMatch(
      /id="f-toolOrder" name="toolOrder" aria-describedby="f-toolOrder-error" aria-invalid="true"/,
    );
    expect(await stored(t.tenantId)).toEqual(before);

    const good = await review(client, { toolOrder: 'search_faq\n<unlisted-tools>' }, 'tools');
    expect(good.res.status).toBe(200);
    expect(good.html).toContain('<ins>+   &quot;toolOrder&quot;: [\n</ins>');
    expect(good.html).toContain('<ins>+     &quot;search_faq&quot;,\n</ins>');
    expect(await stored(t.tenantId)).toEqual(before);
    const saved = await saveReviewed(client, good.html);
    expect(saved.headers.get('location')).toBe('/dashboard/setup/tools?saved=config');
    expect((await stored(t.tenantId)).toolOrder).toEqual(['search_faq', '<unlisted-tools>']);
  });

  it('adds a flow through the empty row: the missing id is said in plain words next to it, a pasted address is cut to its id', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const half = await review(
      client,
      { 'flows.3.name': 'price_list', 'flows.3.description': 'the 2027 price list' },
      'catalogue',
    );
    expect(half.res.status).toBe(400);
    expect(errorOf(half.html, 'flows-3-ns')).toBe('<p>A flow needs its ManyChat flow id</p>');
    const wrong = await review(
      client,
      { 'flows.3.name': 'price_list', 'flows.3.ns': 'Price list', 'flows.3.description': 'the 2027 price list' },
      'catalogue',
    );
    expect(errorOf(wrong.html, 'flows-3-ns')).toContain('is not a ManyChat flow id');
    const full = await review(
      client,
      {
        'flows.3.name': 'price_list',
        'flows.3.ns': 'https://app.manychat.com/fb1000001/cms/files/content20270101000000_000001/edit',
        'flows.3.description': 'the 2027 price list',
        'flows.3.keywords': 'prices, 2027',
      },
      'catalogue',
    );
    expect(full.res.status).toBe(200);
    await saveReviewed(client, full.html);
    expect((await stored(t.tenantId)).flows).toContainEqual({
      name: 'price_list',
      ns: 'content20270101000000_000001',
      description: 'the 2027 price list',
      keywords: ['prices', '2027'],
    });
  });

  it("keeps a custom field's label through a save, and can change it", async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const unchanged = await review(client, { 'tags.0.description': 'asked about classes' }, 'catalogue');
    await saveReviewed(client, unchanged.html);
    expect((await stored(t.tenantId)).fields).toEqual([
      expect.objectContaining({ name: 'preferred_class', label: 'your preferred class' }),
    ]);
    const relabel = await review(client, { 'fields.0.label': 'the class you like' }, 'catalogue');
    await saveReviewed(client, relabel.html);
    expect((await stored(t.tenantId)).fields).toEqual([expect.objectContaining({ label: 'the class you like' })]);
  });

  it('shows zod and cross-field problems next to their fields (deadline; a manifest rule); one about another section at the top', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const deadline = await review(client, { deadlineMs: '50' });
    expect(deadline.res.status).toBe(400);
    expect(errorOf(deadline.html, 'deadlineMs')).toBe('<p>The deadline (ms) must be at least 500</p>');
    // Tool rows follow the tools: row 5 is search_faq (a read tool), which cannot have confirm.
    const rule = await review(client, { 'tools.5.confirm': 'once' }, 'tools');
    expect(rule.res.status).toBe(400);
    expect(errorOf(rule.html, 'tools-5-effect')).toContain(
      'tool &quot;search_faq&quot;: confirm is only for write tools',
    );
    // Removing the handoff's tag in the catalogue breaks the handoff section: said at the top, nothing saved.
    const tag = await review(client, { 'tags.1.remove': 'yes' }, 'catalogue');
    expect(tag.res.status).toBe(400);
    expect(tag.html).toMatch(
      /<ul class="error" role="alert"><li>handoff\.tag &quot;human_handoff&quot; is not a configured tag<\/li>/,
    );
  });

  it('tools: create one with its kind and manifest settings, edit it, remove it; the rules are shown next to their fields', async () => {
    const t = await dashboardTenant({ tools: [], manifest: {}, toolOrder: undefined });
    const client = await login(t);
    const empty = (await client.page('/dashboard/setup/tools')).html;
    expect(empty).toContain('aria-label="Add a tool"');
    // The manifest's rule is next to the field, and linked to it for screen readers.
    expect(empty).toMatch(/<p id="f-tools-0-confirm-hint" class="muted">Write tools only\. once \(the default\)/);
    expect(empty).toMatch(/id="f-tools-0-confirm" name="tools\.0\.confirm" aria-describedby="f-tools-0-confirm-hint"/);
    const add = {
      'tools.0.name': 'send_media',
      'tools.0.kind': 'send_flow',
      'tools.0.description': 'Send one of the studio flows.',
      'tools.0.effect': 'write',
      'tools.0.confirm': 'never',
      'tools.0.resources': 'flow:brochure, flow:timetable',
      'tools.0.guidance': 'Only when asked.',
    };
    const created = await review(client, add, 'tools');
    expect(created.res.status).toBe(200);
    await saveReviewed(client, created.html);
    let cfg = await stored(t.tenantId);
    expect(cfg.tools).toEqual([
      { name: 'send_media', kind: 'send_flow', description: 'Send one of the studio flows.' },
    ]);
    expect(cfg.manifest).toEqual({
      send_media: {
        effect: 'write',
        confirm: 'never',
        guidance: 'Only when asked.',
        resources: ['flow:brochure', 'flow:timetable'],
      },
    });

    const edited = await review(
      client,
      { 'tools.0.confirm': '', 'tools.0.approval': 'yes', 'tools.0.description': 'Send a studio flow.' },
      'tools',
    );
    expect(edited.res.status).toBe(200);
    await saveReviewed(client, edited.html);
    cfg = await stored(t.tenantId);
    expect(cfg.manifest).toEqual({
      send_media: {
        effect: 'write',
        approval: 'pinned',
        guidance: 'Only when asked.',
        resources: ['flow:brochure', 'flow:timetable'],
      },
    });
    expect((cfg.tools as { description: string }[])[0]!.description).toBe('Send a studio flow.');

    // A read kind declared write would never be offered: refused at save, next to the row.
    const wrongEffect = await review(
      client,
      {
        'tools.1.name': 'faq',
        'tools.1.kind': 'search_faq',
        'tools.1.description': 'Search the FAQ.',
        'tools.1.effect': 'write',
        'tools.1.confirm': 'never',
      },
      'tools',
    );
    expect(wrongEffect.res.status).toBe(400);
    expect(errorOf(wrongEffect.html, 'tools-1-effect')).toContain('only reads, but its manifest declares effect write');

    const removed = await review(client, { 'tools.0.remove': 'yes' }, 'tools');
    await saveReviewed(client, removed.html);
    cfg = await stored(t.tenantId);
    expect(cfg.tools).toEqual([]);
    expect(cfg.manifest).toEqual({});
  });

  it('secrets: a malformed ManyChat key is refused next to its field; Check says whether the stored key works', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const page = (await client.page('/dashboard/setup/secrets')).html;
    const rev = /name="rev" value="(\d+)"/.exec(page)![1]!;
    const bad = await client.post('/dashboard/setup/secrets', {
      rev,
      manychatApiKey: 'https://manychat.com/settings/api',
    });
    expect(bad.status).toBe(400);
    expect(errorOf(await bad.text(), 'manychatApiKey')).toContain('This is not a ManyChat API key');
    const works = await (await client.post('/dashboard/setup/check-manychat')).text();
    expect(works).toMatch(/The ManyChat key works: your page has \d+ flows, \d+ tags and \d+ custom fields\./);
    // A key of the right shape that ManyChat does not know: saved, and Check says so.
    expect(
      (await client.post('/dashboard/setup/secrets', { rev, manychatApiKey: '1000001:not-a-real-key' })).status,
    ).toBe(303);
    const refused = await (await client.post('/dashboard/setup/check-manychat')).text();
    expect(refused).toContain('The ManyChat key does not work: ManyChat refused the API key');
  });

  it("imports flows, tags and fields from the tenant's ManyChat page: picked ones are added after the review", async () => {
    const t = await dashboardTenant({
      flows: [],
      tags: [],
      fields: [],
      tools: [],
      manifest: {},
      toolOrder: undefined,
      handoff: { reply: 'A teammate will reply.' },
    });
    const client = await login(t);
    const { apiKey } = await sandboxPage();
    const secretsPage = (await client.page('/dashboard/setup/secrets')).html;
    expect(
      (
        await client.post('/dashboard/setup/secrets', {
          rev: /name="rev" value="(\d+)"/.exec(secretsPage)![1]!,
          manychatApiKey: apiKey,
        })
      ).status,
    ).toBe(303);
    const { html } = await client.page('/dashboard/setup/import');
    expect(html).toContain('Studio tour');
    expect(html).toContain('content20261101000000_000102');
    expect(html).toContain('trial_booked');
    expect(html).toMatch(/seen_at \(datetime\)[\s\S]*?cannot be set by the agent/);
    const fields = formFields(html, '/dashboard/setup/import');
    const pick = {
      ...fields,
      'flow.0.pick': 'yes',
      'tag.1.pick': 'yes',
      'field.0.pick': 'yes',
      'field.1.pick': 'yes',
      'flow.1.ns': 'content20991231000000_000999',
    };
    const res = await client.request('POST', '/dashboard/setup/import', pick);
    expect(res.status).toBe(200);
    const preview = await res.text();
    expect(preview).toContain('&quot;ns&quot;: &quot;content20261101000000_000101&quot;');
    await saveReviewed(client, preview);
    const cfg = await stored(t.tenantId);
    // The forged ns (not on the page) and the datetime field were not imported.
    expect(cfg.flows).toEqual([
      { name: 'studio_tour', ns: 'content20261101000000_000101', description: 'Studio tour', keywords: [] },
    ]);
    expect(cfg.tags).toEqual([{ name: 'trial_booked', description: '' }]);
    expect(cfg.fields).toEqual([{ name: 'plan', type: 'text', description: '' }]);
    // Imported once: the page now shows it as already in the catalogue.
    expect((await client.page('/dashboard/setup/import')).html).toMatch(/Studio tour[\s\S]*?already in your catalogue/);
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

  it('a review of a change too large to diff line by line says how many lines change instead', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const { html } = await client.page('/dashboard/setup/persona');
    const rev = /name="rev" value="(\d+)"/.exec(html)![1]!;
    await review(client, { displayName: 'Moved on' }).then((r) => saveReviewed(client, r.html));
    // A stale save of a ~200 KB config: the conflict page diffs it against the stored one. Unbounded,
    // ~7,000 inserted lines cost seconds of CPU in one request.
    const faq = Array.from({ length: 1400 }, (_, i) => ({
      id: `q${i}`,
      question: `Question ${i}?`,
      answer: `Answer ${i}.`,
    }));
    const big = { ...(await stored(t.tenantId)), faq };
    const res = await client.post('/dashboard/setup/save', { rev, section: 'persona', config: JSON.stringify(big) });
    expect(res.status).toBe(409);
    const page = await res.text();
    expect(page).toContain('changed by someone else');
    expect(page).toMatch(/too large to show line by line: from line \d+, [\d,]+ lines are replaced by [\d,]+ lines/);
    expect(page).not.toContain('<ins>');
  });

  it('sections are saved on their own: a persona save keeps the tools another editor just saved', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const tools = await review(client, { 'tools.0.guidance': 'Offer the brochure first.' }, 'tools');
    await saveReviewed(client, tools.html);
    const persona = await review(client, { persona: 'You are Mila, the studio assistant.' });
    const diff = persona.html;
    await saveReviewed(client, diff);
    const cfg = await stored(t.tenantId);
    expect(cfg.persona).toBe('You are Mila, the studio assistant.');
    expect((cfg.manifest as Record<string, { guidance?: string }>).send_media!.guidance).toBe(
      'Offer the brochure first.',
    );
  });

  it('a deeply nested config posted to the save (and replay) step is a 400 naming the problem, not a 500; nothing is saved', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const before = await stored(t.tenantId);
    const { html } = await client.page('/dashboard/setup/guardrails');
    const rev = /name="rev" value="(\d+)"/.exec(html)![1]!;
    const deep = `{"persona":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const res = await client.post('/dashboard/setup/save', { rev, config: deep });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('deeper than 64 levels');
    expect(await stored(t.tenantId)).toEqual(before);
    const guardrails = await client.post('/dashboard/setup/preview', {
      ...formFields(html, '/dashboard/setup/preview'),
      guardrails: `{"content":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    });
    expect(guardrails.status).toBeLessThan(500);
  });

  it('never saves an invalid config, even one posted straight to the save step', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const before = await stored(t.tenantId);
    const { html } = await client.page('/dashboard/setup/tools');
    const rev = /name="rev" value="(\d+)"/.exec(html)![1]!;
    const res = await client.post('/dashboard/setup/save', {
      rev,
      section: 'tools',
      config: JSON.stringify({ ...before, toolOrder: ['reply'] }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('f-toolOrder-error');
    expect(await stored(t.tenantId)).toEqual(before);
  });
});

describe('approvals, turns, health', () => {
  async function destructiveTurn(t: { tenantId: string; secret: string }) {
    const contactId = await newContact();
    const model = scriptedModel([
      {
        calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
        reply: reply('A team member will review removing the tag.'),
      },
    ]);
    const res = await appWith(model).post(t.tenantId, t.secret, {
      contact: { id: contactId, first_name: 'Ada' },
      text: 'please remove my interested tag',
    });
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
    const approved = await client.request(
      'POST',
      `/dashboard/approvals/${id}/approve`,
      formFields(confirm.html, `/dashboard/approvals/${id}/approve`),
    );
    expect(approved.headers.get('location')).toBe('/dashboard/approvals?result=approved');
    expect((await loadPinned(session(), t.tenantId, id))?.status).toBe('approved');
    expect((await outboxEntry(t.tenantId, id))?.actions.map((a) => [a.kind, a.args])).toEqual([
      ['remove_tag', { tag: 'interested' }],
    ]);
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
    expect(
      await expireDueApprovals(
        { session: session(), publisher: noPublish, pinSecret: workerEnv.SESSION_SECRET!, now: later },
        t.tenantId,
      ),
    ).toBe(1);
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
    const model = scriptedModel([
      {
        calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
        reply: reply('Absolutely: guaranteed weight loss in two weeks!'),
      },
    ]);
    const res = await appWith(model).post(t.tenantId, t.secret, {
      contact: { id: contactId },
      text: 'Will yoga make me lose weight? Send me the brochure',
    });
    const turnId = res.headers.get('x-turn-id')!;
    const client = await login(t);
    const { html } = await client.page(`/dashboard/turns/${turnId}`);
    expect(html).toContain('<span class="badge veto">veto</span>');
    expect(html).toMatch(
      /<td>content<\/td><td><span class="badge veto">veto<\/span><\/td><td>the reply contains the denied phrase &quot;guaranteed weight loss&quot;<\/td>/,
    );
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

  it("a turn's page shows each action's real delivery state and attempts, as the ledger holds them", async () => {
    const t = await dashboardTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      {
        calls: [
          { tool: 'send_media', input: { flow: 'brochure' } },
          { tool: 'send_media', input: { flow: 'timetable' } },
          { tool: 'tag_contact', input: { tag: 'interested' } },
        ],
        reply: reply('Sure.'),
      },
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sure.') },
    ]);
    const app = appWith(model);
    const first = (
      await app.post(t.tenantId, t.secret, {
        contact: { id: contactId },
        text: 'I am interested: send me the brochure and the timetable',
      })
    ).headers.get('x-turn-id')!;
    const second = (
      await app.post(t.tenantId, t.secret, { contact: { id: contactId }, text: 'The brochure again please' })
    ).headers.get('x-turn-id')!;
    const entry = (await outboxEntry(t.tenantId, first))!;
    const other = (await outboxEntry(t.tenantId, second))!;
    const [performed, dead, retrying] = entry.actions as [
      (typeof entry.actions)[0],
      (typeof entry.actions)[0],
      (typeof entry.actions)[0],
    ];
    const unknown = other.actions[0]!;
    expect(entry.actions).toHaveLength(3);
    // What delivery records, through the ledger's own transitions.
    const ref = { session: session(), tenantId: t.tenantId, turnId: first };
    const otherRef = { ...ref, turnId: second };
    const now = new Date();
    for (const a of entry.actions) expect((await claimAction(ref, a.id, now)).applied).toBe(true);
    await markDone(ref, performed.id, now);
    await markDead(
      ref,
      dead.id,
      now,
      'ManyChat: flow not found',
      deadLetterFor(entry, dead, 'dead', 'ManyChat: flow not found', now),
    );
    await releaseClaim(ref, retrying.id, now, 'ManyChat 503');
    await claimAction(ref, retrying.id, now);
    await releaseClaim(ref, retrying.id, now, 'ManyChat 503 again');
    await claimAction(otherRef, unknown.id, now);
    await markUnknown(
      otherRef,
      unknown.id,
      now,
      'no answer in 8 s',
      deadLetterFor(other, unknown, 'unknown', 'no answer in 8 s', now),
    );
    const client = await login(t);
    const badges = async (turnId: string) => {
      const { html } = await client.page(`/dashboard/turns/${turnId}`);
      return [
        ...html.matchAll(/<td><span class="badge ([a-z ]+)">[a-z ]+<\/span><\/td><td>(\d+)<\/td><td>([^<]*)<\/td>/g),
      ].map((m) => m.slice(1));
    };
    expect(await badges(first)).toEqual([
      ['performed', '1', ''],
      ['dead', '1', 'ManyChat: flow not found'],
      ['retrying', '2', 'ManyChat 503 again'],
    ]);
    expect(await badges(second)).toEqual([['unknown', '1', 'no answer in 8 s']]);
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
    const contactId = await newContact();
    const dry = await client.post('/dashboard/try', { text: 'Send me the brochure', contactId });
    const dryHtml = await dry.text();
    expect(dry.status).toBe(200);
    expect(dryHtml).toContain('Dry run: nothing was committed or performed.');
    expect(dryHtml).toContain('Here is the brochure!');
    expect(dryHtml).toMatch(/Would commit: send flow/);
    expect(await session().one((r) => r.zcard(tenantKeys(t.tenantId).contactTurns(contactId)))).toBe(0);
    const performed = await client.post('/dashboard/try', { text: 'Send me the brochure', contactId, perform: 'yes' });
    const performedHtml = await performed.text();
    // Committed, not "performed": whether ManyChat took it is the delivery's to say (the turn page).
    expect(performedHtml).toContain(
      'Committed for the test contact: 1 action sent to ManyChat in the background. Open the turn to see whether each arrived.',
    );
    expect(performedHtml).not.toContain('Performed');
    const turnId = /href="\/dashboard\/turns\/(turn_[0-9a-f]+)"/.exec(performedHtml)![1]!;
    expect((await outboxEntry(t.tenantId, turnId))?.actions.map((a) => a.kind)).toEqual(['send_flow']);
    // The default contact is no ManyChat subscriber: performing for it is refused before anything is committed.
    const turnsBefore = await session().one((r) => r.zcard(tenantKeys(t.tenantId).contactTurns('dashboard-test')));
    const refused = await client.post('/dashboard/try', {
      text: 'Send me the brochure',
      contactId: 'dashboard-test',
      perform: 'yes',
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(
      /id="try-contact-error" class="error">To perform, use a real ManyChat subscriber id/,
    );
    expect(await session().one((r) => r.zcard(tenantKeys(t.tenantId).contactTurns('dashboard-test')))).toBe(
      turnsBefore,
    );
    const empty = await client.post('/dashboard/try', { text: '  ', contactId });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain('id="try-text-error"');
  });
  it('refuses to perform for a suspended tenant, like every other path; a dry run still runs and commits nothing', async () => {
    const t = await dashboardTenant();
    const model = scriptedModel([
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here is the brochure!') },
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here is the brochure!') },
    ]);
    const app = createApp((s) => ({ ...s, model: () => ({ model, modelId: 'scripted-model', offline: false }) }));
    const client = await login(t, new DashboardClient(app));
    await client.page('/dashboard/try');
    await setTenantStatus(session(), t.tenantId, 'suspended');
    // A real (numeric) subscriber id: the suspension, not the id, is what refuses the run.
    const contactId = await newContact();
    const performed = await client.post('/dashboard/try', { text: 'Send me the brochure', contactId, perform: 'yes' });
    expect(performed.status).toBe(409);
    const html = await performed.text();
    expect(html).toContain('This tenant is suspended: nothing was run, committed or performed.');
    expect(html).not.toContain('Performed: the turn was committed');
    expect(await session().one((r) => r.zcard(tenantKeys(t.tenantId).contactTurns(contactId)))).toBe(0);
    expect(await session().one((r) => r.zcard(tenantKeys(t.tenantId).outboxPending))).toBe(0);
    const dry = await client.post('/dashboard/try', { text: 'Send me the brochure', contactId });
    expect(dry.status).toBe(200);
    expect(await dry.text()).toContain('Dry run: nothing was committed or performed.');
  });
});

describe('API reference', () => {
  it('is an OpenAPI 3.1 document drawn from the zod schemas, and every operation it lists is a real route', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const res = await client.request('GET', '/dashboard/api/openapi.json');
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    const configSchema =
      doc.paths['/v1/tenants/{tenant}/config']!.put!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(configSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['persona', 'flows', 'manifest', 'toolOrder', 'guardrails', 'handoff', 'deadlineMs']),
    );
    const app = createApp();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const url = path
          .replace('{tenant}', t.tenantId)
          .replace('{id}', `ap_${'0'.repeat(32)}`)
          .replace('{contact}', '42');
        // No credentials: a real route answers 401; a path the Worker does not serve would be 404.
        const answer = await app.fetch(
          new Request(`https://worker.test${url}`, { method: method.toUpperCase() }),
          workerEnv,
        );
        expect(answer.status, `${method.toUpperCase()} ${path}`).toBe(401);
      }
    }
  });
});
