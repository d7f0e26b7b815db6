import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { createApp } from '../../src/app.js';
import { REPLAY_RUNS_PER_MINUTE } from '../../src/replay/replay-limit.js';
import { DashboardClient, formFields } from '../support/dashboard-client.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session, uniqueId } from '../support/workers-env.js';
import { appWith, turnRecord } from './turn-helpers.js';

/**
 * The dashboard's replay action, through the real app in workerd: a tenant picks recorded turns
 * and a candidate config and sees what would change; another tenant's turns are never readable;
 * runs are rate-limited (429, Retry-After); nothing is written but the audit line and the limiter.
 */
async function dashboardTenant() {
  const t = await seedTenant();
  const password = `pw-${uniqueId('p')}`;
  await setDashboardUser(session(), t.tenantId, 'owner', password);
  return { ...t, password };
}

async function login(t: { tenantId: string; password: string }, client = new DashboardClient()) {
  expect((await client.login(t.tenantId, 'owner', t.password)).status).toBe(303);
  return client;
}

/** Records `n` real turns through the ManyChat webhook; every third reply mentions the brochure. */
async function recordTurns(t: { tenantId: string; secret: string }, n: number): Promise<TurnRecord[]> {
  const steps = Array.from({ length: n }, (_, i) => ({
    reply: reply(i % 3 === 0 ? `Turn ${i}: here is the brochure.` : `Turn ${i}: happy to help.`),
  }));
  const app = appWith(scriptedModel(steps));
  const records: TurnRecord[] = [];
  for (let i = 0; i < n; i++) {
    const contactId = await newContact();
    const res = await app.post(t.tenantId, t.secret, {
      contact: { id: contactId, first_name: 'Ada' },
      text: `question ${i}`,
    });
    expect(res.status).toBe(200);
    records.push(await turnRecord(t.tenantId, res.headers.get('x-turn-id') ?? ''));
  }
  await app.settle();
  return records;
}

/** The tenant's keys and values, but for the audit log and the rate limiters (a run writes those). */
async function tenantState(tenantId: string): Promise<Record<string, string>> {
  const s = session();
  const keys = ((await s.one((r) => r.keys(`t:${tenantId}:*`))) as string[])
    .filter((k) => !k.includes(':rl:') && !k.endsWith(':audit'))
    .sort();
  const state: Record<string, string> = {};
  for (const key of keys) {
    const type = await s.one((r) => r.type(key));
    const value = await s.one((r): Promise<unknown> => {
      if (type === 'string') return r.get(key);
      if (type === 'hash') return r.hgetall(key);
      if (type === 'list') return r.lrange(key, 0, -1);
      if (type === 'set') return r.smembers(key);
      if (type === 'zset') return r.zrange(key, 0, -1, { withScores: true });
      return Promise.resolve(type);
    });
    state[key] = `${type}:${JSON.stringify(value)}`;
  }
  return state;
}

function replayForm(html: string, change: Record<string, string>): Record<string, string> {
  return { ...formFields(html, '/dashboard/replay'), ...change };
}

const summaryOf = (html: string) => /<dl id="replay-summary">([\s\S]*?)<\/dl>/.exec(html)?.[1] ?? '';
const summaryValue = (html: string, term: string) =>
  new RegExp(`<dt>${term}</dt><dd>([^<]*)</dd>`).exec(summaryOf(html))?.[1];

describe('dashboard: replay', () => {
  it('the form starts from the stored config; a tightened deny-list reports exactly the turns whose decision changes, and nothing is written or sent', async () => {
    const t = await dashboardTenant();
    const records = await recordTurns(t, 6);
    const client = await login(t);
    const { html } = await client.page('/dashboard/replay');
    expect(html).toContain('name="_csrf"');
    expect(html).not.toContain('<script');
    const fields = formFields(html, '/dashboard/replay');
    const stored = JSON.parse(fields.config!) as {
      tenantId: string;
      guardrails: { content: { denyPhrases: string[] } };
    };
    expect(stored.tenantId).toBe(t.tenantId);

    const before = await tenantState(t.tenantId);
    const same = await client.post('/dashboard/replay', replayForm(html, {}));
    const sameHtml = await same.text();
    expect(same.status).toBe(200);
    expect(summaryValue(sameHtml, 'Turns replayed')).toBe('6');
    expect(summaryValue(sameHtml, 'Changed')).toBe('0');
    expect(summaryValue(sameHtml, 'Model calls')).toBe(
      '6 recorded → 6 replayed (6 answered from the recording, 0 by the model)',
    );

    stored.guardrails.content.denyPhrases = [...stored.guardrails.content.denyPhrases, 'brochure'];
    const res = await client.post('/dashboard/replay', replayForm(html, { config: JSON.stringify(stored) }));
    const out = await res.text();
    expect(res.status).toBe(200);
    expect(summaryValue(out, 'Changed')).toBe('2');
    expect(summaryValue(out, 'Decision pass→veto')).toBe('2');
    expect(summaryValue(out, 'Changed: decision')).toBe('2');
    const changed = records.filter((r) => r.reply.text.includes('brochure')).map((r) => r.turnId);
    expect(changed).toHaveLength(2);
    for (const r of records) {
      const row = new RegExp(`<tr id="replay-turn-${r.turnId}">([\\s\\S]*?)</tr>`).exec(out)?.[1] ?? '';
      if (changed.includes(r.turnId)) expect(row).toContain('pass → veto (content)');
      else expect(row).toContain('<td>unchanged</td>');
    }
    expect(await tenantState(t.tenantId)).toEqual(before);
    const audit = (await session().one((r) => r.lrange(tenantKeys(t.tenantId).audit, 0, 0))) as unknown[];
    expect(JSON.stringify(audit)).toContain('replay.run');
  });

  it('filters: ids, decision and contact narrow the turns; a bad field is named next to it', async () => {
    const t = await dashboardTenant();
    const records = await recordTurns(t, 3);
    const client = await login(t);
    const { html } = await client.page('/dashboard/replay');
    const byIds = await (
      await client.post('/dashboard/replay', replayForm(html, { ids: `${records[0]!.turnId}\n${records[2]!.turnId}` }))
    ).text();
    expect(summaryValue(byIds, 'Turns replayed')).toBe('2');
    expect(byIds).toContain(`id="replay-turn-${records[0]!.turnId}"`);
    expect(byIds).not.toContain(`id="replay-turn-${records[1]!.turnId}"`);
    // A turn's page links to a replay of that turn alone.
    const turnPage = (await client.page(`/dashboard/turns/${records[1]!.turnId}`)).html;
    expect(turnPage).toContain(`href="/dashboard/replay?ids=${records[1]!.turnId}"`);
    const linked = await client.page(`/dashboard/replay?ids=${records[1]!.turnId}`);
    expect(formFields(linked.html, '/dashboard/replay').ids).toBe(records[1]!.turnId);
    const byContact = await (
      await client.post('/dashboard/replay', replayForm(html, { contact: records[1]!.contactId }))
    ).text();
    expect(summaryValue(byContact, 'Turns replayed')).toBe('1');
    // A time range (UTC, as the datetime-local field sends it): all three lie after 2000 and before 2999.
    const inRange = await (
      await client.post('/dashboard/replay', replayForm(html, { since: '2000-01-01T00:00', until: '2999-01-01T00:00' }))
    ).text();
    expect(summaryValue(inRange, 'Turns replayed')).toBe('3');
    const before2000 = await (
      await client.post('/dashboard/replay', replayForm(html, { until: '2000-01-01T00:00' }))
    ).text();
    expect(summaryValue(before2000, 'Turns replayed')).toBe('0');
    const vetoes = await (await client.post('/dashboard/replay', replayForm(html, { decision: 'veto' }))).text();
    expect(summaryValue(vetoes, 'Turns replayed')).toBe('0');
    const bad = await client.post(
      '/dashboard/replay',
      replayForm(html, { since: 'yesterday', config: '{"persona": ' }),
    );
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(badHtml).toMatch(/id="replay-since-error" class="error">a date and time/);
  });

  it('tenant-scoped: ids of another tenant find nothing, and a config naming another tenant is refused', async () => {
    const a = await dashboardTenant();
    const b = await dashboardTenant();
    const aTurns = await recordTurns(a, 2);
    const client = await login(b);
    const { html } = await client.page('/dashboard/replay');
    const res = await client.post(
      '/dashboard/replay',
      replayForm(html, { ids: aTurns.map((r) => r.turnId).join('\n') }),
    );
    const out = await res.text();
    expect(res.status).toBe(200);
    expect(summaryValue(out, 'Turns replayed')).toBe('0');
    const report = out.slice(out.indexOf('id="replay-report"'));
    expect(report).toContain('No recorded turns match.');
    for (const r of aTurns) expect(report).not.toContain(r.turnId);
    const theirs = JSON.parse(formFields(html, '/dashboard/replay').config!) as Record<string, unknown>;
    const refused = await client.post(
      '/dashboard/replay',
      replayForm(html, { config: JSON.stringify({ ...theirs, tenantId: a.tenantId }) }),
    );
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(
      `the candidate config is of tenant &quot;${a.tenantId}&quot;, not yours (${b.tenantId})`,
    );
  });

  it('a form without the CSRF token is refused', async () => {
    const t = await dashboardTenant();
    const client = await login(t);
    const { html } = await client.page('/dashboard/replay');
    const { _csrf: _token, ...fields } = formFields(html, '/dashboard/replay');
    const res = await client.request('POST', '/dashboard/replay', fields);
    expect(res.status).toBe(403);
  });

  it(`rate-limited per tenant: run ${REPLAY_RUNS_PER_MINUTE.tokens + 1} in a minute answers 429 with Retry-After and a message; another tenant is not limited`, async () => {
    const t = await dashboardTenant();
    const other = await dashboardTenant();
    const client = await login(t);
    const { html } = await client.page('/dashboard/replay');
    for (let i = 0; i < REPLAY_RUNS_PER_MINUTE.tokens; i++)
      expect((await client.post('/dashboard/replay', replayForm(html, {}))).status).toBe(200);
    const limited = await client.post('/dashboard/replay', replayForm(html, {}));
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(await limited.text()).toMatch(
      /Refused: too many replays: at most 6 a minute per tenant; try again in \d+ s\./,
    );
    const otherClient = await login(other);
    const otherPage = await otherClient.page('/dashboard/replay');
    expect((await otherClient.post('/dashboard/replay', replayForm(otherPage.html, {}))).status).toBe(200);
  });

  it('a new persona: without a model the turns need one; with "let your model answer" the configured model answers the changed requests', async () => {
    const t = await dashboardTenant();
    await recordTurns(t, 2);
    const model = scriptedModel([{ reply: reply('Bonjour !') }, { reply: reply('Bonjour !') }]);
    const app = createApp((s) => ({ ...s, model: () => ({ model, modelId: 'scripted-model', offline: false }) }));
    const client = await login(t, new DashboardClient(app));
    const { html } = await client.page('/dashboard/replay');
    const config = JSON.parse(formFields(html, '/dashboard/replay').config!) as { persona: string };
    const candidate = JSON.stringify({ ...config, persona: `${config.persona} Answer in French.` });
    const without = await (await client.post('/dashboard/replay', replayForm(html, { config: candidate }))).text();
    expect(summaryValue(without, 'Need a model')).toBe('2');
    expect(summaryValue(without, 'Changed')).toBe('0');
    expect(without).toContain('needs a model: the request of model call 1 differs from the recorded one');
    const withModel = await (
      await client.post('/dashboard/replay', replayForm(html, { config: candidate, model: 'yes' }))
    ).text();
    expect(summaryValue(withModel, 'Need a model')).toBe('0');
    expect(summaryValue(withModel, 'Changed: reply')).toBe('2');
    expect(summaryValue(withModel, 'Model calls')).toBe(
      '2 recorded → 2 replayed (0 answered from the recording, 2 by the model)',
    );
    expect(withModel).toContain('→ Bonjour !');
  });
});
