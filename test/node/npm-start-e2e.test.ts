import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, DEV_SESSION_SECRET, type StackFacts } from '../../dev/stack.js';
import { ensureRedis, freePort, type RedisHandle } from '../../dev/redis-server.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { RedisSession, parseJson } from '../../core/storage/redis-session.js';
import { DUE_INDEX_KEY, tenantKeys } from '../../core/storage/keys.js';
import { signTerms, type PinnedTerms } from '../../core/pinned-terms.js';

const execFileAsync = promisify(execFile);

/**
 * `npm start` as a new business meets it: the real dev/start.ts (its own Redis, so its cron walks
 * only this run's tenants), a tenant created through the operator API with a ManyChat page and a
 * flow the sandbox has never seen, contacts the sandbox has never seen — and an approval moved
 * past its expiry that the stack's own cron (every minute, no manual step) expires.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TENANT = 'new-studio';
const PRICE_LIST = {
  name: 'price_list',
  ns: 'content20260101000000_000042',
  description: 'the new price list',
  keywords: ['price list'],
};

let redis: RedisHandle;
let child: ChildProcess;
let stateDir: string;
let output = '';
let facts: StackFacts;

async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | null | undefined | false>,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}\n--- npm start output ---\n${output.slice(-4000)}`,
      );
    await sleep(300);
  }
}

beforeAll(async () => {
  redis = await ensureRedis(`redis://127.0.0.1:${await freePort()}`);
  stateDir = await mkdtemp(join(tmpdir(), 'npm-start-e2e-'));
  child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['dev/start.ts'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(await freePort()),
      REDIS_URL: redis.url,
      STACK_STATE_DIR: stateDir,
      OPENAI_API_KEY: '',
    },
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await waitFor('npm start to be ready', 150_000, async () => output.includes('staged-agent is running'));
  facts = JSON.parse(await readFile(join(stateDir, 'stack.json'), 'utf8')) as StackFacts;
}, 180_000);

afterAll(async () => {
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGINT');
    } catch {
      // already gone
    }
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(10_000)]);
  }
  await redis?.close();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
}, 30_000);

async function api(method: string, path: string, bearer: string, body?: unknown): Promise<Response> {
  return fetch(`${facts.workerUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function message(secret: string, contactId: string, text: string): Promise<Response> {
  return fetch(`${facts.workerUrl}/v1/manychat/${TENANT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-staged-agent-secret': secret },
    body: JSON.stringify({ contact: { id: contactId, first_name: 'New' }, text }),
  });
}

type Call = { path: string; status: number; body: Record<string, unknown> };
async function callsFor(contactId: string): Promise<Call[]> {
  const { calls } = (await (await fetch(facts.manychat.callsUrl)).json()) as { calls: Call[] };
  return calls.filter((c) => String(c.body?.subscriber_id) === contactId);
}

describe('npm start, for a new business', () => {
  it("the printed curl, pasted as printed, shows the answer's headers: x-turn-id names the turn", async () => {
    const printed = /Try it:\n\n(curl [\s\S]+?)\n\n/.exec(output)?.[1];
    expect(printed).toContain('curl -s -i -X POST');
    const { stdout } = await execFileAsync('bash', [
      '-c',
      printed!.replace('Hi! Can you send me the brochure?', `Hi! brochure please (${Date.now()})`),
    ]);
    expect(stdout).toMatch(/^HTTP\/1\.1 200/);
    const turnId = /^x-turn-id: (\S+)\r?$/im.exec(stdout)?.[1];
    expect(turnId).toBeTruthy();
    expect(
      (await api('GET', `/v1/tenants/${facts.demo.tenantId}/turns/${turnId}`, facts.demo.adminSecret)).status,
    ).toBe(200);
  });

  it('an Instagram studio: the printed Instagram curl, pasted as printed in the repository folder, shows the question, presses Yes, and the printed check shows it performed', async () => {
    const block = /Instagram, through ManyChat[\s\S]+?\n\n(curl [\s\S]+?press-button\.ts Yes)\n/.exec(output)?.[1];
    expect(block).toContain('"channel":"instagram"');
    const { stdout } = await execFileAsync('bash', ['-c', block!], { cwd: process.cwd() });
    expect(stdout).toMatch(/^asked: [\s\S]*pilates[\s\S]*\[Yes \| No\]$/m);
    expect(stdout).toContain('x-confirmation-outcome: confirmed');
    expect(stdout).toContain('"type":"instagram"');
    const check = /the Yes is performed:\ncurl -s '([^']+)'/.exec(output)?.[1];
    expect(check).toContain('?path=/fb/subscriber/setCustomFieldByName');
    // "It is on its way": the outbox performs it moments after the press.
    const performed = async () =>
      ((await (await fetch(check!)).json()) as { calls: Call[] }).calls.filter(
        (c) => String(c.body.subscriber_id) === '4343',
      );
    await waitFor('the Yes to be performed', 15_000, async () => (await performed()).length > 0);
    expect(await performed()).toEqual([
      expect.objectContaining({ status: 200, body: expect.objectContaining({ field_value: 'pilates' }) }),
    ]);
  });

  it('prints every secret a user needs, and no stack trace', () => {
    expect(output).toContain(`admin secret "${facts.demo.adminSecret}"`);
    expect(output).toContain(facts.operatorSecret);
    expect(output).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
    expect(output).not.toContain('workers.cloudflare.com');
    // The Redis it uses, with the version the server itself reports (INFO), so an old one is seen up front.
    expect(facts.redisVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(output).toContain(`version ${facts.redisVersion}`);
  });

  it('a new page, a new contact and a new flow: the flow is performed; an approval past its expiry is expired by the cron within two minutes', async () => {
    const created = await api('POST', '/v1/operator/tenants', facts.operatorSecret, {
      tenantId: TENANT,
      manychatApiKey: '2000002:new-studio-key',
      config: { ...demoTenantConfig(TENANT), flows: [PRICE_LIST] },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { webhookSecret, adminSecret } = (await created.json()) as { webhookSecret: string; adminSecret: string };
    // The stack mirrors the saved config into the sandbox (as the business would have set it up in ManyChat).
    await waitFor('the sandbox to mirror the new tenant', 10_000, async () =>
      output.includes(`[sandbox] tenant "${TENANT}" → ManyChat page 2000002`),
    );

    const newContact = String(7_000_000_000 + Math.floor(Math.random() * 1e9));
    const first = await message(webhookSecret, newContact, 'Can you send me the price list?');
    expect(first.status).toBe(200);
    const sent = await waitFor('the flow to be performed for the new contact', 20_000, async () =>
      (await callsFor(newContact)).find((c) => c.path.endsWith('/sendFlow') && c.status === 200),
    );
    expect(sent.body.flow_ns).toBe(PRICE_LIST.ns);
    // The Worker's own log lines are visible: the turn's JSON line.
    await waitFor('the turn log line', 10_000, async () =>
      output.includes(`"event":"turn","turnId":"${first.headers.get('x-turn-id')}"`),
    );

    // Sending the flow now waits for the tenant's approval.
    const config = (await (await api('GET', `/v1/tenants/${TENANT}/config`, adminSecret)).json()) as {
      manifest: Record<string, Record<string, unknown>>;
      flows: unknown[];
    };
    const TIMETABLE = {
      name: 'summer_timetable',
      ns: 'content20260101000000_000043',
      description: 'the summer timetable',
      keywords: ['summer'],
    };
    const put = await api('PUT', `/v1/tenants/${TENANT}/config`, adminSecret, {
      ...config,
      flows: [...config.flows, TIMETABLE],
      manifest: { ...config.manifest, send_media: { effect: 'write', approval: 'pinned' } },
    });
    expect(put.status, await put.clone().text()).toBe(200);
    // A later save is mirrored too: the flow it adds exists on the page.
    await waitFor('the sandbox to mirror the saved config', 10_000, async () =>
      output.includes(`[sandbox] tenant "${TENANT}" → ManyChat page 2000002: 2 flows`),
    );
    const other = String(8_000_000_000 + Math.floor(Math.random() * 1e9));
    expect((await message(webhookSecret, other, 'Please send me the price list')).status).toBe(200);
    const { approvals } = (await (await api('GET', `/v1/tenants/${TENANT}/approvals`, adminSecret)).json()) as {
      approvals: { id: string }[];
    };
    expect(approvals).toHaveLength(1);
    const approvalId = approvals[0]!.id;

    // Shortened for the check: the row expired a second ago (re-signed as the product signs it).
    const session = RedisSession.connect(facts.upstash.url, facts.upstash.token);
    const keys = tenantKeys(TENANT);
    const terms = parseJson(await session.one((r) => r.get(keys.pinnedTerms(approvalId)))) as PinnedTerms;
    const shiftMs = Date.parse(terms.expiresAt) - Date.now() + 1000;
    const { sig: _sig, pinned: _pinned, ...unsigned } = terms;
    const moved = await signTerms(
      {
        ...unsigned,
        createdAt: new Date(Date.parse(terms.createdAt) - shiftMs).toISOString(),
        expiresAt: new Date(Date.parse(terms.expiresAt) - shiftMs).toISOString(),
      },
      DEV_SESSION_SECRET,
    );
    await session.multi((m) => {
      m.set(keys.pinnedTerms(approvalId), JSON.stringify(moved), { keepTtl: true, xx: true });
      m.zadd(keys.approvalQueue, { xx: true }, { score: Date.parse(moved.expiresAt), member: approvalId });
      // Time moved for this row: the tenant's due time in the cron's index moves with it.
      m.zadd(DUE_INDEX_KEY, { lt: true }, { score: Date.parse(moved.expiresAt), member: TENANT });
    });
    const movedAt = Date.now();

    // No manual step: the stack's cron (every minute) expires it.
    await waitFor('the cron to expire the approval', 125_000, async () =>
      String(await session.one((r) => r.get(keys.pinnedStatus(approvalId)))).includes('expired'),
    );
    const tookMs = Date.now() - movedAt;
    console.log(
      `npm start e2e: approval expired by the local cron ${(tookMs / 1000).toFixed(1)} s after its expiry was moved`,
    );
    expect(tookMs).toBeLessThan(120_000);
    const told = await waitFor('the contact to be told', 20_000, async () =>
      (await callsFor(other)).find((c) => c.path.endsWith('/sendContent') && c.status === 200),
    );
    expect(JSON.stringify(told.body)).toContain('Nothing was changed');
    expect((await callsFor(other)).some((c) => c.path.endsWith('/sendFlow'))).toBe(false);
  }, 200_000);
});
