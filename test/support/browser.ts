import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startModelSandbox, type ModelSandbox } from '../../dev/model-sandbox.js';
import { chromiumPath } from '../../dev/preflight.js';
import { freePort } from '../../dev/redis-server.js';
import { DEV_UPSTASH_TOKEN, ROOT, startLocalStack, type LocalStack } from '../../dev/stack.js';
import { RedisSession } from '../../core/storage/redis-session.js';

/**
 * What the dashboard's browser tests share: the whole local stack (wrangler dev, its own Redis,
 * the QStash broker, the ManyChat sandbox, a scripted model server), Debian's headless Chromium
 * driven by playwright-core, a page, login, screenshots into .local/screenshots/<dir>/
 * (git-ignored), and the measures the pages are judged by (sideways scroll, cut-off buttons).
 * Measures run inside the page; the tests' own types have no DOM, hence the narrow casts.
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserStack {
  stack: LocalStack;
  models: ModelSandbox;
  browser: Browser;
  page: Page;
  /** The Worker's URL. */
  base(): string;
  /** A full-page screenshot named `<name>.png` in this file's screenshot folder. */
  shot(name: string): Promise<Buffer>;
  shotsDir: string;
  /** A Redis session on the stack's own Upstash bridge. */
  redis(): RedisSession;
  close(): Promise<void>;
}

/**
 * Starts a stack on a free Redis port (REDIS_URL is set for the start and restored on close),
 * the model sandbox, Chromium and one page. `name` names the state folder and the screenshots'.
 */
export async function startBrowserStack(opts: {
  name: string;
  viewport?: { width: number; height: number };
}): Promise<BrowserStack> {
  const shotsDir = join(ROOT, '.local', 'screenshots', opts.name);
  await mkdir(shotsDir, { recursive: true });
  const savedRedisUrl = process.env.REDIS_URL;
  const models = await startModelSandbox();
  process.env.REDIS_URL = `redis://127.0.0.1:${await freePort()}`;
  const stack = await startLocalStack({
    withWorker: true,
    qstashRetryBaseMs: 200,
    stateDir: join(ROOT, '.local', `test-${opts.name}-browser`),
    workerVars: { OPENAI_API_KEY: 'sandbox', OPENAI_BASE_URL: models.baseURL, OPENAI_API_MODE: 'chat' },
  });
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
  const page = await browser.newPage({ viewport: opts.viewport ?? { width: 1280, height: 900 } });
  return {
    stack,
    models,
    browser,
    page,
    shotsDir,
    base: () => stack.facts.workerUrl!,
    shot: (name) => page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage: true }),
    redis: () => RedisSession.connect(stack.upstash.url, DEV_UPSTASH_TOKEN),
    async close() {
      await browser.close().catch(() => undefined);
      await stack.close();
      await models.close();
      if (savedRedisUrl === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = savedRedisUrl;
    },
  };
}

/** Logs in on the dashboard's login form and waits for Setup. */
export async function logIn(page: Page, base: string, login: { tenant: string; user: string; password: string }) {
  await page.goto(`${base}/dashboard/login`);
  await page.getByLabel('Tenant').fill(login.tenant);
  await page.getByLabel('User').fill(login.user);
  await page.getByLabel('Password').fill(login.password);
  await page.getByRole('button', { name: /log in/i }).click();
  await page.waitForURL('**/dashboard/setup');
}

/** A new subscriber of the page in the ManyChat sandbox (so actions for it are performed); answers its id. */
export function sandboxContact(stack: LocalStack, pageId: string): string {
  const id = String(Math.floor(1e9 + Math.random() * 8e9));
  stack.manychat.addSubscriber({ pageId, id, firstName: 'Ada' });
  return id;
}

/** Polls `probe` until it answers something other than undefined. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Scroll width past the viewport, in CSS pixels (0 or less: nothing scrolls sideways). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** The innermost elements that reach past the viewport (tag.class "text…"), to name what overflows. */
export function widest(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type El = {
      tagName: string;
      className: unknown;
      textContent: string | null;
      getBoundingClientRect(): { right: number };
    };
    const doc = (
      globalThis as unknown as {
        document: { documentElement: { clientWidth: number }; querySelectorAll(s: string): Iterable<El> };
      }
    ).document;
    const width = doc.documentElement.clientWidth;
    return [...doc.querySelectorAll('main *')]
      .filter((el) => el.getBoundingClientRect().right > width + 1)
      .slice(-3)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${String(el.className)} "${(el.textContent ?? '').trim().slice(0, 40)}" → ${Math.round(el.getBoundingClientRect().right)} px`,
      );
  });
}

/** The text of every button whose right edge is past the viewport (cut off by a wide table). */
export function buttonsPastViewport(page: Page): Promise<(string | null)[]> {
  return page.evaluate(() => {
    const doc = (
      globalThis as unknown as {
        document: {
          documentElement: { clientWidth: number };
          querySelectorAll(
            s: string,
          ): Iterable<{ getBoundingClientRect(): { right: number }; textContent: string | null }>;
        };
      }
    ).document;
    const width = doc.documentElement.clientWidth;
    return [...doc.querySelectorAll('button')]
      .filter((b) => b.getBoundingClientRect().right > width)
      .map((b) => b.textContent);
  });
}

/**
 * Elements inside each `container` match whose content passes the container's right edge: the
 * element itself, or its text overflowing it (a long word wider than its box: scrollWidth).
 */
export function spillsOutOf(page: Page, container: string): Promise<string[]> {
  return page.evaluate((selector) => {
    type El = {
      tagName: string;
      textContent: string | null;
      scrollWidth: number;
      clientWidth: number;
      getBoundingClientRect(): { left: number; right: number };
      querySelectorAll(s: string): Iterable<El>;
    };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<El> } }).document;
    return [...doc.querySelectorAll(selector)].flatMap((box) => {
      const edge = box.getBoundingClientRect().right;
      return [...box.querySelectorAll('*')]
        .filter((el) => {
          const rect = el.getBoundingClientRect();
          // clientWidth is 0 for inline elements: their rect is what counts.
          const contentRight = el.clientWidth ? rect.left + el.scrollWidth : rect.right;
          return Math.max(rect.right, contentRight) > edge + 1;
        })
        .map((el) => `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`);
    });
  }, container);
}
