import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DASHBOARD_LOGIN, DEMO_PAGE_ID, DEMO_TENANT_ID, DEMO_WEBHOOK_SECRET } from '../../dev/demo-tenant.js';
import { safetyIdentifierFor, type ModelSandbox } from '../../dev/model-sandbox.js';
import type { LocalStack } from '../../dev/stack.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson } from '../../core/storage/redis-session.js';
import { sandboxContact, sidewaysOverflow, startBrowserStack, until, type BrowserStack } from '../support/browser.js';

/**
 * The dashboard in a real browser (Debian's headless Chromium driven by playwright-core) against
 * the running local stack: wrangler dev, Redis, the QStash broker, the ManyChat sandbox, and a
 * scripted OpenAI-compatible model server. Every page is screenshotted into .local/screenshots/dashboard/
 * (git-ignored) so a person can look at them. The stack and browser: test/support/browser.ts.
 */

let h: BrowserStack;
let stack: LocalStack;
let models: ModelSandbox;
let page: Page;

const base = () => h.base();
const shot = (name: string) => h.shot(name);
const demoConfig = async () =>
  parseJson(await h.redis().one((r) => r.get(tenantKeys(DEMO_TENANT_ID).config))) as {
    flows: { name: string }[];
    toolOrder?: string[];
  };

const newContact = () => sandboxContact(stack, DEMO_PAGE_ID);

async function webhook(contactId: string, text: string): Promise<string> {
  const res = await fetch(`${base()}/v1/manychat/${DEMO_TENANT_ID}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-staged-agent-secret': DEMO_WEBHOOK_SECRET },
    body: JSON.stringify({
      contact: { id: contactId, first_name: 'Ada', last_interaction: new Date().toISOString() },
      text,
    }),
  });
  expect(res.status).toBe(200);
  return res.headers.get('x-turn-id')!;
}

beforeAll(async () => {
  h = await startBrowserStack({ name: 'dashboard', viewport: { width: 1200, height: 900 } });
  ({ stack, models, page } = h);
}, 180_000);

afterAll(async () => {
  await h?.close();
});

describe('the dashboard in headless Chromium', () => {
  it('logs in with the demo login, by keyboard only', async () => {
    await page.goto(`${base()}/dashboard`);
    await expect.poll(() => page.url()).toContain('/dashboard/login');
    await shot('01-login');
    await page.getByLabel('Tenant').focus();
    await page.keyboard.type(DEMO_TENANT_ID);
    await page.keyboard.press('Tab');
    await page.keyboard.type(DEMO_DASHBOARD_LOGIN.user);
    await page.keyboard.press('Tab');
    await page.keyboard.type(DEMO_DASHBOARD_LOGIN.password);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard/setup');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Setup');
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === '__Host-dash');
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    await shot('02-setup');
  }, 60_000);

  it('adds a flow: the review shows the diff, save stores it', async () => {
    await page.getByRole('link', { name: 'Catalogue', exact: true }).first().click();
    await page.waitForURL('**/dashboard/setup/catalogue');
    const row = page.getByRole('group', { name: 'Add a flow' });
    await row.getByLabel('New flow name').fill('price_list');
    await row.getByLabel('ManyChat flow ns').fill('content20270101000000_000009');
    await row.getByLabel('Description shown to the model').fill('the 2027 price list');
    await row.getByLabel('Keywords (comma-separated)').fill('prices, 2027');
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.waitForURL('**/dashboard/setup/preview');
    await expect
      .poll(() => page.locator('pre.diff ins').allTextContents())
      .toContainEqual(expect.stringContaining('"name": "price_list"'));
    await shot('03-setup-diff');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/dashboard/setup/catalogue?saved=config');
    expect(await page.getByRole('status').first().textContent()).toContain('Saved');
    expect((await demoConfig()).flows.map((f) => f.name)).toContain('price_list');
  }, 60_000);

  it('an invalid tool order is shown next to its field and not saved; fixed, it saves', async () => {
    await page.goto(`${base()}/dashboard/setup/tools`);
    const order = page.getByLabel(/^Tool order/);
    await order.fill('search_faq\nno_such_tool');
    await page.getByRole('button', { name: 'Review changes' }).click();
    const field = page.getByLabel(/^Tool order/);
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await field.getAttribute('aria-describedby'))!;
    const error = page.locator(`#${errorId}`);
    expect(await error.textContent()).toContain('toolOrder names "no_such_tool", which is not a tool');
    // Next to the field: the error is the element right after the textarea, in the same block.
    expect(await field.evaluate((el, id) => el.nextElementSibling?.id === id, errorId)).toBe(true);
    await error.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(h.shotsDir, '04-setup-error.png') });
    expect((await demoConfig()).toolOrder).toBeUndefined();
    await field.fill('search_faq\n<unlisted-tools>');
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/dashboard/setup/tools?saved=config');
    expect((await demoConfig()).toolOrder).toEqual(['search_faq', '<unlisted-tools>']);
  }, 60_000);

  it('approves a pending destructive action: it is performed in the ManyChat sandbox', async () => {
    const contactId = newContact();
    models.script({
      safetyIdentifier: safetyIdentifierFor(DEMO_TENANT_ID, contactId),
      steps: [
        {
          calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
          reply: {
            text: 'A teammate will review removing the tag.',
            escalate: false,
            confidence: 0.9,
            reason: 'asked to remove a tag',
          },
        },
      ],
    });
    await webhook(contactId, 'please remove my interested tag');
    const removals = () =>
      stack.manychat
        .calls()
        .filter(
          (c) =>
            c.path.includes('removeTag') &&
            String((c.body as Record<string, unknown> | null)?.subscriber_id) === contactId,
        );
    await page.goto(`${base()}/dashboard/approvals`);
    const card = page.getByRole('article').filter({ hasText: contactId });
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.textContent()).toContain('please remove my interested tag');
    await shot('05-approvals');
    await card.getByRole('link', { name: 'Approve…' }).click();
    await page.waitForURL('**/confirm');
    await shot('06-approval-confirm');
    expect(removals()).toHaveLength(0);
    await page.getByRole('button', { name: 'Yes, approve and perform it' }).click();
    await page.waitForURL('**/dashboard/approvals?result=approved');
    const performed = await until('the removeTag call', () =>
      removals().some((c) => c.status === 200) ? removals() : undefined,
    );
    expect(performed.filter((c) => c.status === 200)).toHaveLength(1);
    await shot('07-approved');
  }, 90_000);

  it("opens a vetoed turn's page and reads the guardrail's reason", async () => {
    const contactId = newContact();
    models.script({
      safetyIdentifier: safetyIdentifierFor(DEMO_TENANT_ID, contactId),
      steps: [
        {
          reply: {
            text: 'Sure, your card 4111 1111 1111 1111 is on file.',
            escalate: false,
            confidence: 0.9,
            reason: 'answered',
          },
        },
      ],
    });
    const turnId = await webhook(contactId, 'Which card do you have on file for me?');
    await page.goto(`${base()}/dashboard/turns`);
    await page.getByLabel('Decision').selectOption('veto');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator(`a[href="/dashboard/turns/${turnId}"]`).click();
    await page.waitForURL(`**/dashboard/turns/${turnId}`);
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'content', exact: true }) });
    expect(await row.textContent()).toMatch(/veto.*card number/i);
    await shot('08-turn-vetoed');
    await page.goto(`${base()}/dashboard/turns`);
    await shot('09-turns');
  }, 60_000);

  it('uses Try it: the reply is shown and nothing is sent to the test contact', async () => {
    models.script({
      safetyIdentifier: safetyIdentifierFor(DEMO_TENANT_ID, 'dashboard-test'),
      steps: [
        {
          calls: [{ tool: 'send_media', input: { flow: 'timetable' } }],
          reply: {
            text: "Here is this week's timetable!",
            escalate: false,
            confidence: 0.9,
            reason: 'asked for the timetable',
          },
        },
      ],
    });
    const before = stack.manychat.calls().length;
    await page.goto(`${base()}/dashboard/try`);
    await page.getByLabel('Message').fill('Can you send me the timetable?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#try-reply').textContent()).toBe("Here is this week's timetable!");
    expect(await page.getByRole('status').first().textContent()).toContain('Dry run');
    expect(await page.locator('section#result, section[aria-labelledby="result"]').textContent()).toContain(
      'send flow "timetable"',
    );
    await shot('10-try-it');
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      stack.manychat
        .calls()
        .slice(before)
        .filter((c) => String((c.body as Record<string, unknown> | null)?.subscriber_id) === 'dashboard-test'),
    ).toEqual([]);
  }, 60_000);

  it('stays readable at 200 % zoom: no page scrolls sideways', async () => {
    // 200 % zoom of a 1200 px window is a 600 CSS-pixel viewport.
    await page.setViewportSize({ width: 600, height: 900 });
    for (const path of [
      'setup',
      'setup/persona',
      'setup/catalogue',
      'setup/tools',
      'setup/guardrails',
      'setup/handoff',
      'setup/secrets',
      'approvals',
      'turns',
      'handoffs',
      'health',
      'try',
      'replay',
      'api',
      'audit',
      'setup/channels',
    ]) {
      await page.goto(`${base()}/dashboard/${path}`);
      const overflow = await sidewaysOverflow(page);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await page.goto(`${base()}/dashboard/setup/tools`);
    await shot('13-setup-200-percent');
    // Every visible control of every page has an accessible name (a <label>, or a button's text).
    for (const path of [
      'setup/persona',
      'setup/catalogue',
      'setup/tools',
      'setup/guardrails',
      'setup/handoff',
      'setup/channels',
      'setup/secrets',
      'approvals',
      'turns',
      'handoffs',
      'health',
      'try',
      'replay',
      'audit',
    ]) {
      await page.goto(`${base()}/dashboard/${path}`);
      const unlabelled = await page.evaluate(() => {
        type El = {
          tagName: string;
          type?: string;
          id: string;
          name?: string;
          labels?: { length: number } | null;
          textContent: string | null;
          getAttribute(n: string): string | null;
        };
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<El> } }).document;
        return [...doc.querySelectorAll('input, select, textarea, button')]
          .filter((el) => el.type !== 'hidden')
          .filter(
            (el) =>
              !(el.labels && el.labels.length) &&
              !el.getAttribute('aria-label') &&
              !(el.tagName === 'BUTTON' && el.textContent?.trim()),
          )
          .map((el) => `${el.tagName.toLowerCase()} ${el.name ?? el.id}`);
      });
      expect(unlabelled, path).toEqual([]);
    }
    await page.setViewportSize({ width: 1200, height: 900 });
  }, 60_000);

  it('shows Health and the API reference', async () => {
    await page.goto(`${base()}/dashboard/health`);
    expect(await page.locator('svg[role="img"]').count()).toBeGreaterThan(0);
    await shot('11-health');
    await page.goto(`${base()}/dashboard/api`);
    expect(await page.getByRole('heading', { name: 'PUT /v1/tenants/{tenant}/config' }).count()).toBe(1);
    await shot('12-api-reference');
    await page.goto(`${base()}/dashboard/setup`);
    await page.getByRole('link', { name: 'Channels', exact: true }).first().click();
    expect(await page.locator('#request-body').textContent()).toContain('{{Full Contact Data}}');
    await shot('16-connect-manychat');
  }, 60_000);

  it('replays recent turns with nothing performed, and the audit log shows who did what', async () => {
    const before = stack.manychat.calls().length;
    await page.goto(`${base()}/dashboard/replay`);
    await page.getByLabel('Newest matching turns to replay').fill('5');
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.locator('#replay-summary').waitFor();
    expect(await page.locator('section[aria-labelledby="replay-report"]').textContent()).toContain(
      'nothing was sent, committed or saved',
    );
    expect(Number(await page.locator('#replay-summary dd').first().textContent())).toBeGreaterThan(0);
    await shot('14-replay');
    expect(stack.manychat.calls().length).toBe(before);
    await page.goto(`${base()}/dashboard/audit`);
    const actions = await page.getByRole('row').allTextContents();
    // The earlier tests' own doings, newest first: the replay just run, the approval, the flow added.
    expect(actions.join('\n')).toMatch(/replay\.run[\s\S]*approval\.approved[\s\S]*config\.changed/);
    await shot('15-audit');
  }, 90_000);
});
