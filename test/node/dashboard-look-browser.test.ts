import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DASHBOARD_LOGIN, DEMO_PAGE_ID, DEMO_TENANT_ID, DEMO_WEBHOOK_SECRET } from '../../dev/demo-tenant.js';
import { safetyIdentifierFor, type ModelSandbox } from '../../dev/model-sandbox.js';
import type { LocalStack } from '../../dev/stack.js';
import {
  buttonsPastViewport,
  logIn,
  sandboxContact,
  sidewaysOverflow,
  startBrowserStack,
  until,
  widest,
  type BrowserStack,
} from '../support/browser.js';

/**
 * Issue 32, "look, not read", in headless Chromium against the local stack (wrangler dev, Redis,
 * the QStash broker, the ManyChat sandbox, a scripted model): Health's trend charts drawn with
 * real turns and a delivery failure, a contact's conversation reached from Turns, the handoff
 * inbox and its release button — then EVERY dashboard page at 375 px and at 200 % zoom (a
 * 640 px viewport) without sideways scroll, and Health's dead-letter buttons inside 1280 px.
 * Screenshots of each page go to .local/screenshots/dashboard-look/ (git-ignored).
 */

let h: BrowserStack;
let stack: LocalStack;
let models: ModelSandbox;
let page: Page;
const turns: Record<string, string> = {};

const base = () => h.base();
const shot = (name: string) => h.shot(name);
const newContact = () => sandboxContact(stack, DEMO_PAGE_ID);

/** One scripted turn through the real ManyChat webhook; answers its turn id. */
async function turn(
  contactId: string,
  text: string,
  step: { calls?: { tool: string; input: Record<string, unknown> }[]; reply: string; escalate?: boolean },
): Promise<string> {
  models.script({
    safetyIdentifier: safetyIdentifierFor(DEMO_TENANT_ID, contactId),
    steps: [
      {
        ...(step.calls ? { calls: step.calls } : {}),
        reply: { text: step.reply, escalate: step.escalate ?? false, confidence: 0.9, reason: 'scripted' },
      },
    ],
  });
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
  h = await startBrowserStack({ name: 'dashboard-look' });
  ({ stack, models, page } = h);
  await logIn(page, base(), { tenant: DEMO_TENANT_ID, ...DEMO_DASHBOARD_LOGIN });
}, 180_000);

afterAll(async () => {
  await h?.close();
});

describe('look, not read: charts, a contact, the handoff inbox', () => {
  it("Health's charts render with the turns' data: decisions, latency, deferred share, a delivery failure", async () => {
    const ada = newContact();
    turns.brochure = await turn(ada, 'Send me the brochure please', {
      calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
      reply: 'Here is our brochure!',
    });
    turns.hours = await turn(ada, 'When do you open on Sundays?', { reply: 'We open at 9 am on Sundays.' });
    turns.veto = await turn(newContact(), 'Which card do you have on file?', {
      reply: 'Your card 4111 1111 1111 1111 is on file.',
    });
    // ManyChat answers the flow with a 500: the send may have happened, so it is unknown — a failure.
    const bo = newContact();
    stack.manychat.injectFault({ path: '/sendFlow', pageId: DEMO_PAGE_ID, count: 1, kind: '500' });
    turns.failed = await turn(bo, 'And the timetable?', {
      calls: [{ tool: 'send_media', input: { flow: 'timetable' } }],
      reply: 'Here is the timetable!',
    });
    await until('the failure on Health', async () => {
      await page.goto(`${base()}/dashboard/health`);
      return (await page.locator('svg[data-chart^="delivery-failures"] rect[data-series="failed"]').count()) > 0
        ? true
        : undefined;
    });
    const decisions = page.locator('svg[data-chart="decisions-last-24-hours"]');
    expect(await decisions.locator('rect[data-series="pass"]').getAttribute('data-value')).toBe('3');
    expect(await decisions.locator('rect[data-series="veto"]').getAttribute('data-value')).toBe('1');
    // Drawn, not only present: the columns and the latency dots have a size on the screen.
    const column = await decisions.locator('rect[data-series="pass"]').boundingBox();
    expect(column!.height).toBeGreaterThan(10);
    expect(await page.locator('svg[data-chart^="latency"] g[data-series="p95"] circle').count()).toBeGreaterThan(0);
    expect(await page.locator('svg[data-chart^="deferred"] circle').count()).toBeGreaterThan(0);
    expect(await page.locator('#trends + nav + p, .trends > p').first().textContent()).toMatch(
      /4\s*turns — 3 passed, 1 vetoed/,
    );
    await page.locator('#trends').scrollIntoViewIfNeeded();
    await shot('01-health-trends-1280');
    await page.getByRole('link', { name: 'Last 7 days' }).click();
    await page.waitForURL('**/health?window=7d*');
    expect(
      await page.locator('svg[data-chart="decisions-last-7-days"] rect[data-series="pass"]').getAttribute('data-value'),
    ).toBe('3');
    await shot('02-health-trends-7d');
  }, 120_000);

  it("a contact's conversation is one click from Turns: messages, replies and what became of each action", async () => {
    await page.goto(`${base()}/dashboard/turns`);
    const row = page.getByRole('row').filter({ hasText: 'Send me the brochure please' });
    await row.getByRole('link', { name: /^Conversation with/ }).click();
    await page.waitForURL('**/dashboard/contacts/*');
    const items = page.locator('ol.conversation > li');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(0).textContent()).toContain('Send me the brochure please');
    expect(await items.nth(0).textContent()).toContain('Here is our brochure!');
    expect(await items.nth(1).textContent()).toContain('We open at 9 am on Sundays.');
    await until('the brochure performed', async () => {
      await page.reload();
      return (await items.nth(0).locator('.badge.performed').count()) > 0 ? true : undefined;
    });
    await shot('03-contact-1280');
    // And from the turn page.
    await page.goto(`${base()}/dashboard/turns/${turns.veto}`);
    await page.getByRole('link', { name: /^\d+$/ }).first().click();
    await page.waitForURL('**/dashboard/contacts/*');
    expect(await page.locator('ol.conversation').textContent()).toContain('Which card do you have on file?');
  }, 90_000);

  it('the handoff inbox lists a contact waiting for a person; Release lets the agent answer again', async () => {
    const cy = newContact();
    turns.handoff = await turn(cy, 'I want to speak to a person about my refund', {
      reply: 'A teammate will pick this up.',
      escalate: true,
    });
    await page.goto(`${base()}/dashboard/setup`);
    await page.getByRole('link', { name: 'Handoffs', exact: true }).click();
    await page.waitForURL('**/dashboard/handoffs');
    const card = page.getByRole('listitem').filter({ hasText: `Contact ${cy}` });
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.textContent()).toContain('I want to speak to a person about my refund');
    await shot('04-handoffs-1280');
    await card.getByRole('button', { name: `Release ${cy}` }).click();
    await page.waitForURL('**/dashboard/handoffs?released=yes');
    expect(await page.getByRole('status').first().textContent()).toContain('Released');
    expect(
      await page
        .getByRole('listitem')
        .filter({ hasText: `Contact ${cy}` })
        .count(),
    ).toBe(0);
    // The agent answers the contact again.
    await turn(cy, 'Thanks, one more question', { reply: 'Of course, ask away.' });
    await page.goto(`${base()}/dashboard/contacts/${cy}`);
    expect(await page.locator('ol.conversation').textContent()).toContain('Of course, ask away.');
    // A second contact stays in the inbox for the screenshots below.
    turns.waiting = await turn(newContact(), 'Please call me back', {
      reply: 'A teammate will call you.',
      escalate: true,
    });
  }, 90_000);

  it('every dashboard page fits 375 px and 200 % zoom without sideways scroll; screenshots of each', async () => {
    await page.goto(`${base()}/dashboard/turns/${turns.brochure}`);
    const contactPath = new URL(
      (await page.getByRole('link', { name: /^\d+$/ }).first().getAttribute('href'))!,
      base(),
    ).pathname.replace('/dashboard/', '');
    const paths = [
      'setup',
      'setup/persona',
      'setup/catalogue',
      'setup/tools',
      'setup/guardrails',
      'setup/handoff',
      'setup/channels',
      'setup/secrets',
      'setup/import',
      'approvals',
      'turns',
      `turns/${turns.brochure}`,
      `turns/${turns.failed}`,
      contactPath,
      'handoffs',
      'health',
      'health?window=7d',
      'try',
      'replay',
      `replay?ids=${turns.brochure}`,
      'audit',
      'api',
    ];
    // Every page is measured and shot before the verdict, so one failure does not hide the next.
    const overflowing: string[] = [];
    for (const [width, label] of [
      [375, '375px'],
      [640, '200-percent'],
    ] as const) {
      await page.setViewportSize({ width, height: 800 });
      for (const [i, path] of paths.entries()) {
        await page.goto(`${base()}/dashboard/${path}`);
        const over = await sidewaysOverflow(page);
        if (over > 0) overflowing.push(`${path} at ${label}: ${over} px (${(await widest(page)).join('; ')})`);
        const name = path
          .replace(/turn_[0-9a-f]+/, 'turn')
          .replace(/contacts\/\d+/, 'contact')
          .replace(/[/?=]/g, '-');
        await shot(`10-${label}-${String(i).padStart(2, '0')}-${name}`);
      }
    }
    expect(overflowing).toEqual([]);
  }, 240_000);

  it("Health's dead-letter table keeps its Re-drive buttons inside 1280 px", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base()}/dashboard/health`);
    expect(await page.getByRole('button', { name: /^Re-drive/ }).count()).toBeGreaterThan(0);
    const cut = await buttonsPastViewport(page);
    expect(cut).toEqual([]);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await page.locator('#dead').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(h.shotsDir, '20-health-dead-letters-1280.png') });
  }, 60_000);
});
