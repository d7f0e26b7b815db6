import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safetyIdentifierFor, type ModelSandbox } from '../../dev/model-sandbox.js';
import type { LocalStack } from '../../dev/stack.js';
import { parseJson } from '../../core/storage/redis-session.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import {
  buttonsPastViewport,
  sidewaysOverflow,
  startBrowserStack,
  until,
  type BrowserStack,
} from '../support/browser.js';

/**
 * A business goes live from the dashboard alone, in headless Chromium against the local stack:
 * a tenant created with nothing configured (no flows, no tools), a ManyChat page in the sandbox
 * with flows of its own. Through the dashboard only: check the key, import a flow, create a tool
 * for it, and perform Try it for a real test subscriber — the flow arrives in the sandbox. Then
 * every setup page at 375 px and at 200 % zoom, without sideways scroll. Screenshots go to
 * .local/screenshots/dashboard-setup/ (git-ignored).
 */
const TENANT = 'lotus-studio';
const PAGE_ID = '4200042';
const API_KEY = `${PAGE_ID}:lotus-manychat-key`;
const TOUR_NS = 'content20261101000000_000101';
const LOGIN = { user: 'owner', password: 'lotus-owner-password-1' };

let h: BrowserStack;
let stack: LocalStack;
let models: ModelSandbox;
let page: Page;

const base = () => h.base();
const shot = (name: string) => h.shot(name);
const storedConfig = async () =>
  parseJson(await h.redis().one((r) => r.get(tenantKeys(TENANT).config))) as {
    flows: { name: string; ns: string }[];
    tools: { name: string }[];
    manifest: Record<string, unknown>;
  };

beforeAll(async () => {
  h = await startBrowserStack({ name: 'dashboard-setup' });
  ({ stack, models, page } = h);
  // The business's ManyChat page: two flows, two tags, a field — none of them in the tenant yet.
  stack.manychat.addPage({
    pageId: PAGE_ID,
    apiKey: API_KEY,
    flows: [TOUR_NS, 'content20261101000000_000102'],
    flowNames: { [TOUR_NS]: 'Studio tour', content20261101000000_000102: 'Price list' },
    tags: [{ id: 1, name: 'vip' }],
    customFields: [{ id: 5, name: 'plan', type: 'text' }],
  });
  const created = await fetch(`${base()}/v1/operator/tenants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.facts.operatorSecret}` },
    body: JSON.stringify({ tenantId: TENANT, manychatApiKey: API_KEY }),
  });
  expect(created.status).toBe(201);
  await setDashboardUser(h.redis(), TENANT, LOGIN.user, LOGIN.password);
}, 180_000);

afterAll(async () => {
  await h?.close();
});

describe('from nothing to a flow performed, with the dashboard alone', () => {
  it('logs in to a tenant with nothing configured and finds the setup sections', async () => {
    const before = await storedConfig();
    expect(before.flows).toEqual([]);
    expect(before.tools).toEqual([]);
    await page.goto(`${base()}/dashboard/login`);
    await page.getByLabel('Tenant').fill(TENANT);
    await page.getByLabel('User').fill(LOGIN.user);
    await page.getByLabel('Password').fill(LOGIN.password);
    await page.getByRole('button', { name: /log in/i }).click();
    await page.waitForURL('**/dashboard/setup');
    for (const name of ['Persona', 'Catalogue', 'Tools', 'Guardrails', 'Handoff', 'Channels', 'Secrets'])
      expect(await page.getByRole('link', { name, exact: true }).count(), name).toBeGreaterThan(0);
    await shot('01-setup-index');
  }, 60_000);

  it('checks the ManyChat key: it works, and says what the page has', async () => {
    await page.goto(`${base()}/dashboard/setup/secrets`);
    await page.getByRole('button', { name: 'Check' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('The ManyChat key works: your page has 2 flows, 1 tags and 1 custom fields.');
    await shot('02-secrets-checked');
  }, 60_000);

  it('imports a flow from ManyChat: ticked, reviewed, saved', async () => {
    await page.goto(`${base()}/dashboard/setup/catalogue`);
    await page.getByRole('link', { name: 'Import from ManyChat' }).click();
    await page.waitForURL('**/dashboard/setup/import');
    await shot('03-import');
    await page.getByLabel(/Studio tour/).check();
    await page.getByRole('button', { name: 'Review changes' }).click();
    await expect
      .poll(() => page.locator('pre.diff ins').allTextContents())
      .toContainEqual(expect.stringContaining(`"ns": "${TOUR_NS}"`));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/dashboard/setup/catalogue?saved=config');
    expect((await storedConfig()).flows).toEqual([expect.objectContaining({ name: 'studio_tour', ns: TOUR_NS })]);
    await shot('04-catalogue-imported');
  }, 60_000);

  it('creates a tool for it; a rule broken is said next to its field first', async () => {
    await page.goto(`${base()}/dashboard/setup/tools`);
    const row = page.getByRole('group', { name: 'Add a tool' });
    await row.getByLabel('New tool name').fill('send_tour');
    await row.getByLabel('New tool: kind').selectOption('send_flow');
    await row.getByLabel('New tool: description shown to the model').fill('Send the contact the studio tour video.');
    await row.getByLabel('New tool: effect').selectOption('write');
    // answers_directly needs confirm: never on a write tool: refused, next to the row.
    await row.getByLabel('New tool: answers directly').check();
    await page.getByRole('button', { name: 'Review changes' }).click();
    const effect = page.getByLabel('send_tour: effect');
    await expect.poll(() => effect.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await effect.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    expect(await page.locator(`#${errorId}`).textContent()).toContain(
      'answers_directly on a write tool needs confirm: never',
    );
    await page.locator(`#${errorId}`).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(h.shotsDir, '05-tool-error.png') });
    await page.getByLabel('send_tour: answers directly').uncheck();
    await page.getByLabel('send_tour: confirm').selectOption('never');
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/dashboard/setup/tools?saved=config');
    const cfg = await storedConfig();
    expect(cfg.tools).toEqual([
      { name: 'send_tour', kind: 'send_flow', description: 'Send the contact the studio tour video.' },
    ]);
    expect(cfg.manifest).toEqual({ send_tour: { effect: 'write', confirm: 'never' } });
    await shot('06-tools-saved');
  }, 60_000);

  it('Try it with a real test subscriber performs the flow in the sandbox; the default contact is refused', async () => {
    await page.goto(`${base()}/dashboard/try`);
    await page.getByLabel('Message').fill('Can I see the studio?');
    await page.locator('#try-perform').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => page.locator('#try-contact-error').textContent())
      .toContain('To perform, use a real ManyChat subscriber id');
    const subscriber = '770000123';
    stack.manychat.addSubscriber({ pageId: PAGE_ID, id: subscriber, firstName: 'Ada' });
    models.script({
      safetyIdentifier: safetyIdentifierFor(TENANT, subscriber),
      steps: [
        {
          calls: [{ tool: 'send_tour', input: { flow: 'studio_tour' } }],
          reply: {
            text: 'Here is our studio tour!',
            escalate: false,
            confidence: 0.9,
            reason: 'asked to see the studio',
          },
        },
      ],
    });
    await page.getByLabel('Test contact id').fill(subscriber);
    await page.locator('#try-perform').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#try-reply').textContent()).toBe('Here is our studio tour!');
    expect(await page.getByRole('status').first().textContent()).toContain(
      'Committed for the test contact: 1 action sent to ManyChat',
    );
    const sent = await until('the sendFlow call', () =>
      stack.manychat
        .calls()
        .find(
          (c) =>
            c.path.endsWith('/sendFlow') &&
            String((c.body as Record<string, unknown> | null)?.subscriber_id) === subscriber &&
            c.status === 200,
        ),
    );
    expect((sent.body as { flow_ns: string }).flow_ns).toBe(TOUR_NS);
    await shot('07-try-it-performed');
  }, 90_000);

  it('rotates the webhook secret on Channels and shows the new one once, with copy buttons', async () => {
    await page.goto(`${base()}/dashboard/setup/channels`);
    expect(await page.locator('#webhook-url').textContent()).toBe(`${base()}/v1/manychat/${TENANT}`);
    expect(await page.locator('#request-body').textContent()).toContain('{{Full Contact Data}}');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base() });
    await page.getByRole('button', { name: /^Copy webhook url/i }).click();
    await expect
      .poll(() =>
        page.evaluate(() =>
          (
            globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
          ).navigator.clipboard.readText(),
        ),
      )
      .toBe(`${base()}/v1/manychat/${TENANT}`);
    await shot('08-channels');
    await page.getByRole('button', { name: 'Make a new webhook secret' }).click();
    const secret = (await page.locator('#new-secret').textContent())!;
    expect(secret.length).toBeGreaterThan(20);
    const res = await fetch(`${base()}/v1/manychat/${TENANT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-staged-agent-secret': secret },
      body: JSON.stringify({ contact: { id: '770000124', first_name: 'Bo' }, text: 'hi' }),
    });
    expect(res.status).toBe(200);
    await shot('09-channels-rotated');
  }, 60_000);

  it('an action ManyChat answered with a 500 is listed on Health, its Re-drive button in view at 1280 px', async () => {
    const second = '770000125';
    stack.manychat.addSubscriber({ pageId: PAGE_ID, id: second, firstName: 'Cy' });
    stack.manychat.injectFault({ path: '/sendFlow', pageId: PAGE_ID, count: 1, kind: '500' });
    models.script({
      safetyIdentifier: safetyIdentifierFor(TENANT, second),
      steps: [
        {
          calls: [{ tool: 'send_tour', input: { flow: 'studio_tour' } }],
          reply: {
            text: 'Here is our studio tour!',
            escalate: false,
            confidence: 0.9,
            reason: 'asked to see the studio',
          },
        },
      ],
    });
    await page.goto(`${base()}/dashboard/try`);
    await page.getByLabel('Message').fill('Show me the studio');
    await page.getByLabel('Test contact id').fill(second);
    await page.locator('#try-perform').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#try-reply').textContent()).toBe('Here is our studio tour!');
    await until(
      'the dead letter on Health',
      async () => {
        await page.goto(`${base()}/dashboard/health`);
        return (await page.getByRole('button', { name: /^Re-drive/ }).count()) > 0 ? true : undefined;
      },
      30_000,
    );
  }, 90_000);

  it("every setup page fits 375 px and 200 % zoom without sideways scroll; Health's buttons fit 1280 px", async () => {
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
      'try',
      'approvals',
      'turns',
      'handoffs',
      'health',
      'health?window=7d',
      'replay',
      'audit',
      'api',
    ];
    for (const [width, label] of [
      [375, '375px'],
      [640, '200-percent'],
    ] as const) {
      await page.setViewportSize({ width, height: 800 });
      for (const path of paths) {
        await page.goto(`${base()}/dashboard/${path}`);
        expect(await sidewaysOverflow(page), `${path} at ${label}`).toBeLessThanOrEqual(0);
      }
      for (const path of ['setup/tools', 'setup/channels', 'setup/catalogue']) {
        await page.goto(`${base()}/dashboard/${path}`);
        await shot(`10-${path.replace('/', '-')}-${label}`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base()}/dashboard/health`);
    // Every button on Health is inside the viewport's width (none cut off by a wide table).
    const cut = await buttonsPastViewport(page);
    expect(cut).toEqual([]);
    expect(await page.getByRole('button', { name: /^Re-drive/ }).count()).toBeGreaterThan(0);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await shot('11-health-1280');
  }, 120_000);
});
