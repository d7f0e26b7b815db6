import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DASHBOARD_LOGIN, DEMO_PAGE_ID, DEMO_TENANT_ID, DEMO_WEBHOOK_SECRET } from '../../dev/demo-tenant.js';
import { safetyIdentifierFor, type ModelSandbox } from '../../dev/model-sandbox.js';
import type { LocalStack } from '../../dev/stack.js';
import { logIn, sandboxContact, spillsOutOf, startBrowserStack, until, type BrowserStack } from '../support/browser.js';

/**
 * Issue 32, "must show", in headless Chromium against the local stack: an action that died is
 * shown dead on its turn page and in Turns (and under "did not arrive"), re-driven from the turn
 * page and then shown performed; an approval corrected with "Approve with changes" is performed
 * exactly once, with the corrected arguments (the ManyChat sandbox's recorded calls say so).
 * Screenshots go to .local/screenshots/dashboard-delivery/ (git-ignored).
 */
let h: BrowserStack;
let stack: LocalStack;
let models: ModelSandbox;
let page: Page;

const base = () => h.base();
const shot = (name: string) => h.shot(name);

/** One scripted turn through the real ManyChat webhook; answers its turn id. */
async function turn(
  contactId: string,
  text: string,
  step: { calls?: { tool: string; input: Record<string, unknown> }[]; reply: string },
): Promise<string> {
  models.script({
    safetyIdentifier: safetyIdentifierFor(DEMO_TENANT_ID, contactId),
    steps: [
      {
        ...(step.calls ? { calls: step.calls } : {}),
        reply: { text: step.reply, escalate: false, confidence: 0.9, reason: 'scripted' },
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

/** The sandbox's recorded calls on `path` (a suffix) for one subscriber. */
const callsFor = (contactId: string, path: string) =>
  stack.manychat
    .calls()
    .filter(
      (c) => c.path.endsWith(path) && String((c.body as Record<string, unknown> | null)?.subscriber_id) === contactId,
    );

/** The delivery badges of a turn page, in order. */
const badges = () => page.locator('section[aria-labelledby="delivery"] td .badge').allTextContents();

beforeAll(async () => {
  h = await startBrowserStack({ name: 'dashboard-delivery' });
  ({ stack, models, page } = h);
  await logIn(page, base(), { tenant: DEMO_TENANT_ID, ...DEMO_DASHBOARD_LOGIN });
}, 180_000);

afterAll(async () => {
  await h?.close();
});

describe('delivery state in the browser: dead, re-driven, performed; an approval corrected, performed once', () => {
  it('an action that died is shown dead on the turn page and in Turns, re-driven there, and shown performed', async () => {
    // A contact ManyChat does not know yet: the brochure flow is refused for good (dead).
    const ghost = String(Math.floor(1e9 + Math.random() * 8e9));
    const dead = await turn(ghost, 'Send me the brochure please', {
      calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
      reply: 'Here is our brochure!',
    });
    // Another turn whose action arrives: it must not be listed under "did not arrive".
    const bo = sandboxContact(stack, DEMO_PAGE_ID);
    const fine = await turn(bo, 'And the timetable?', {
      calls: [{ tool: 'send_media', input: { flow: 'timetable' } }],
      reply: 'Here is the timetable!',
    });
    await until(
      'the dead flow on its turn page',
      async () => {
        await page.goto(`${base()}/dashboard/turns/${dead}`);
        return (await badges()).includes('dead') ? true : undefined;
      },
      30_000,
    );
    const row = page.locator('section[aria-labelledby="delivery"] tr').filter({ hasText: 'brochure' });
    expect(await row.locator('.badge').textContent()).toBe('dead');
    expect(await row.textContent()).toContain('Subscriber does not exist');
    expect(await row.getByRole('button', { name: 'Re-drive' }).count()).toBe(1);
    await shot('01-turn-dead');

    await until('the performed flow of the other turn', () =>
      callsFor(bo, '/sendFlow').some((c) => c.status === 200) ? true : undefined,
    );
    await page.goto(`${base()}/dashboard/turns`);
    const listed = page.getByRole('row').filter({ has: page.locator(`a[href="/dashboard/turns/${dead}"]`) });
    expect(await listed.locator('.delivery').textContent()).toMatch(/1\s*dead/);
    await page.getByLabel('Delivery').selectOption('not-arrived');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**/dashboard/turns?*delivery=not-arrived*');
    expect(await page.locator(`a[href="/dashboard/turns/${dead}"]`).count()).toBe(1);
    expect(await page.locator(`a[href="/dashboard/turns/${fine}"]`).count()).toBe(0);
    await shot('02-turns-not-arrived');

    // The contact now exists in ManyChat: re-drive from the turn page.
    stack.manychat.addSubscriber({ pageId: DEMO_PAGE_ID, id: ghost, firstName: 'Ghost' });
    await page.goto(`${base()}/dashboard/turns/${dead}`);
    await page.getByRole('button', { name: 'Re-drive' }).click();
    await page.waitForURL(`**/dashboard/turns/${dead}?redriven=ok`);
    expect(await page.getByRole('status').first().textContent()).toContain('Re-driven');
    expect(await badges()).toEqual(['performed']);
    expect(callsFor(ghost, '/sendFlow').map((c) => c.status)).toEqual([400, 200]);
    await shot('03-turn-redriven-performed');
    await page.goto(`${base()}/dashboard/turns`);
    expect(
      await page
        .getByRole('row')
        .filter({ has: page.locator(`a[href="/dashboard/turns/${dead}"]`) })
        .locator('.delivery')
        .textContent(),
    ).toMatch(/1\s*performed/);
    await page.goto(`${base()}/dashboard/turns?delivery=not-arrived`);
    expect(await page.locator(`a[href="/dashboard/turns/${dead}"]`).count()).toBe(0);
  }, 120_000);

  it('an approval corrected with "Approve with changes" is performed once, with the corrected arguments', async () => {
    // The page gets a "vip" tag in ManyChat, and the business adds it to its catalogue in Setup.
    const manychatPage = stack.manychat.page(DEMO_PAGE_ID)!;
    stack.manychat.addPage({ ...manychatPage, tags: [...(manychatPage.tags ?? []), { id: 3, name: 'vip' }] });
    await page.goto(`${base()}/dashboard/setup/catalogue`);
    const newTag = page.getByRole('group', { name: 'Add a tag' });
    await newTag.getByLabel('New tag').fill('vip');
    await newTag.getByLabel('Description').fill('a member on the VIP plan');
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/dashboard/setup/catalogue?saved=config');

    const contactId = sandboxContact(stack, DEMO_PAGE_ID);
    await turn(contactId, 'please remove my vip tag', {
      // The model picked the wrong tag; the approver corrects it.
      calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
      reply: 'A teammate will review removing the tag.',
    });
    await page.goto(`${base()}/dashboard/approvals`);
    const card = page.getByRole('article').filter({ hasText: contactId });
    await expect.poll(() => card.count()).toBe(1);
    await card.getByRole('link', { name: 'Approve with changes…' }).click();
    await page.waitForURL('**/correct');
    const tag = page.getByLabel('tag', { exact: true });
    expect(await tag.inputValue()).toBe('interested');
    await tag.fill('vip');
    await shot('04-approve-with-changes');
    expect(callsFor(contactId, '/removeTagByName')).toHaveLength(0);
    await page.getByRole('button', { name: 'Reject the original and perform the corrected call' }).click();
    await page.waitForURL('**/dashboard/approvals?result=corrected');
    await until('the corrected removeTag call', () =>
      callsFor(contactId, '/removeTagByName').some((c) => c.status === 200) ? true : undefined,
    );
    // QStash's retries and the sweeper have had their chance: still exactly one call, the corrected one.
    await new Promise((r) => setTimeout(r, 2000));
    const calls = callsFor(contactId, '/removeTagByName');
    expect(calls.map((c) => [(c.body as { tag_name: string }).tag_name, c.status])).toEqual([['vip', 200]]);
    await shot('05-approvals-corrected');
    // Both cards keep their words inside their borders (the approval ids are long single words).
    expect(await spillsOutOf(page, 'article.card')).toEqual([]);
    // Both audited: the original rejected and replaced (newest first), the new row written and approved by the user.
    await page.goto(`${base()}/dashboard/audit`);
    const audit = (await page.getByRole('row').allTextContents()).join('\n');
    expect(audit).toMatch(/approval\.corrected[\s\S]*vip[\s\S]*approval\.rejected[\s\S]*interested/);
    await shot('06-audit');
  }, 120_000);
});
