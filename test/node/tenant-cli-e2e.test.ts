import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/redis-server.js';
import { DEV_UPSTASH_TOKEN, ROOT, startLocalStack, writeStackFacts, type LocalStack } from '../../dev/stack.js';
import { runTenantCli } from '../../dev/tenant-cli.js';
import { RedisSession } from '../../core/storage/redis-session.js';
import { scanPrefix } from '../../src/tenants/provisioning.js';

/**
 * The operator's path from a fresh local stack, through the real Worker (wrangler dev) and the
 * command line: create a tenant, message it with the printed secret, rotate the secret (both work
 * in the window, only the new one after), suspend it (no turn), delete it (no key left) — and
 * the operator's audit log still shows the deletion.
 */
let stack: LocalStack;
const savedRedisUrl = process.env.REDIS_URL;

beforeAll(async () => {
  process.env.REDIS_URL = `redis://127.0.0.1:${await freePort()}`;
  stack = await startLocalStack({ withWorker: true, stateDir: join(ROOT, '.local', 'test-tenant-cli') });
}, 120_000);

afterAll(async () => {
  if (savedRedisUrl === undefined) delete process.env.REDIS_URL;
  else process.env.REDIS_URL = savedRedisUrl;
  await stack?.close();
});

async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const lines: string[] = [];
  const code = await runTenantCli(
    [...args, '--url', stack.facts.workerUrl!, '--operator-secret', stack.facts.operatorSecret],
    (l) => lines.push(l),
  );
  expect(code).toBe(0);
  return JSON.parse(lines.join('\n')) as Record<string, unknown>;
}

const webhook = (tenantId: string, secret: string, text: string) =>
  fetch(`${stack.facts.workerUrl}/v1/manychat/${tenantId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-staged-agent-secret': secret },
    body: JSON.stringify({ contact: { id: '4242', first_name: 'Ada' }, text }),
  });

describe('npm run tenant, against the local stack', () => {
  it('create → message → rotate (overlap) → suspend → delete → audit', async () => {
    const tenantId = `cli-${Date.now().toString(36)}`;
    const created = await cli('create', tenantId, '--manychat-key', stack.facts.demo.manychatApiKey);
    const first = created.webhookSecret as string;
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await webhook(tenantId, first, 'hello')).status).toBe(200);
    expect((await cli('list')).tenants).toEqual(
      expect.arrayContaining([expect.objectContaining({ tenantId, status: 'active' })]),
    );

    // A 3-second window: both secrets work in it, only the new one after it.
    const rotated = await cli('rotate', tenantId, '--secret', 'webhook', '--overlap-minutes', '0.05');
    const second = rotated.value as string;
    expect((await webhook(tenantId, first, 'still the old secret')).status).toBe(200);
    expect((await webhook(tenantId, second, 'already the new secret')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3500));
    expect((await webhook(tenantId, first, 'old secret after the window')).status).toBe(401);
    expect((await webhook(tenantId, second, 'new secret after the window')).status).toBe(200);

    // A leaked ManyChat key replaced: write-only, the answer names what changed, never the value.
    const replaced = await cli('secrets', tenantId, '--manychat-key', stack.facts.demo.manychatApiKey);
    expect(replaced).toEqual({ tenantId, replaced: ['manychatApiKey'] });
    await expect(
      runTenantCli(
        ['secrets', tenantId, '--url', stack.facts.workerUrl!, '--operator-secret', stack.facts.operatorSecret],
        () => {},
      ),
    ).rejects.toThrow(/secrets needs at least one of --manychat-key/);

    await cli('suspend', tenantId);
    const session = RedisSession.connect(stack.upstash.url, DEV_UPSTASH_TOKEN);
    const turnsBefore = await session.one((r) => r.zcard(`t:${tenantId}:turns`));
    const paused = await webhook(tenantId, second, 'are you there?');
    expect(paused.headers.get('x-tenant-suspended')).toBe('1');
    expect(await session.one((r) => r.zcard(`t:${tenantId}:turns`))).toBe(turnsBefore);

    const deleted = await cli('delete', tenantId);
    expect(deleted).toMatchObject({ remaining: 0 });
    expect(await scanPrefix(session, `t:${tenantId}:`)).toEqual([]);
    expect((await webhook(tenantId, second, 'after delete')).status).toBe(401);

    // The tenant and its own log are gone; the operator's log keeps what was done to it.
    const audit = (await cli('audit', '--limit', '100')) as { entries: { action: string; tenantId: string | null }[] };
    expect(audit.entries.filter((e) => e.tenantId === tenantId).map((e) => e.action)).toEqual([
      'tenant.deleted',
      'tenant.suspended',
      'secrets.replaced',
      'secret.rotated',
      'tenant.created',
    ]);
    expect(JSON.stringify(audit)).not.toContain(second);
  }, 60_000);

  it('a wrong operator secret is refused, and says so', async () => {
    await expect(
      runTenantCli(['list', '--url', stack.facts.workerUrl!, '--operator-secret', 'wrong'], () => {}),
    ).rejects.toThrow(/401 wrong operator secret/);
  });

  it('audit: a page the Worker refuses is reported with its reason', async () => {
    await expect(
      runTenantCli(
        ['audit', '--limit', '0', '--url', stack.facts.workerUrl!, '--operator-secret', stack.facts.operatorSecret],
        () => {},
      ),
    ).rejects.toThrow(/400 invalid audit query\n  limit: /);
  });

  it('finds the local stack through STACK_STATE_DIR, where npm start wrote its facts (no --url, no secret)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tenant-cli-state-'));
    await writeStackFacts(stack.facts, dir);
    const saved = process.env.STACK_STATE_DIR;
    const savedSecret = process.env.OPERATOR_SECRET;
    process.env.STACK_STATE_DIR = dir;
    delete process.env.OPERATOR_SECRET;
    try {
      const lines: string[] = [];
      expect(await runTenantCli(['list'], (l) => lines.push(l))).toBe(0);
      expect((JSON.parse(lines.join('\n')) as { tenants: { tenantId: string }[] }).tenants).toEqual(
        expect.arrayContaining([expect.objectContaining({ tenantId: 'demo' })]),
      );
      // The demo tenant's admin secret comes from the same facts.
      const config: string[] = [];
      expect(await runTenantCli(['config', 'get', 'demo'], (l) => config.push(l))).toBe(0);
      expect(JSON.parse(config.join('\n'))).toMatchObject({ tenantId: 'demo', version: 1 });
    } finally {
      if (saved === undefined) delete process.env.STACK_STATE_DIR;
      else process.env.STACK_STATE_DIR = saved;
      if (savedSecret !== undefined) process.env.OPERATOR_SECRET = savedSecret;
    }
  });

  it('config get → diff → push → diff, with the admin secret create printed; a refused push stores nothing', async () => {
    const tenantId = `cfg-${Date.now().toString(36)}`;
    const created = await cli('create', tenantId, '--manychat-key', stack.facts.demo.manychatApiKey);
    const admin = ['--admin-secret', created.adminSecret as string, '--url', stack.facts.workerUrl!];
    const run = async (...args: string[]) => {
      const lines: string[] = [];
      const code = await runTenantCli([...args, ...admin], (l) => lines.push(l));
      return { code, out: lines.join('\n') };
    };
    const stored = JSON.parse((await run('config', 'get', tenantId)).out) as {
      displayName: string;
      deadlineMs: number;
      flows: { name: string; ns: string }[];
    };
    const dir = await mkdtemp(join(tmpdir(), 'tenant-cli-config-'));
    const file = join(dir, 'config.json');

    // The stored config as the file: no changes.
    await writeFile(file, JSON.stringify(stored));
    expect((await run('config', 'diff', tenantId, '--file', file)).out).toBe(
      `no changes: ${file} is ${tenantId}'s stored config`,
    );

    // A second tenant's edit: a new name and flow; the diff shows exactly those lines.
    const edited = {
      ...stored,
      displayName: 'Edited Studio',
      flows: [
        ...stored.flows,
        { name: 'cli_flow', ns: 'content20250101000000_000777', description: 'added from the CLI' },
      ],
    };
    await writeFile(file, JSON.stringify(edited));
    const diff = (await run('config', 'diff', tenantId, '--file', file)).out;
    expect(diff).toContain(`-  "displayName": ${JSON.stringify(stored.displayName)},`);
    expect(diff).toContain('+  "displayName": "Edited Studio",');
    expect(diff).toContain('+      "name": "cli_flow",');
    expect((await run('config', 'push', tenantId, '--file', file)).code).toBe(0);
    expect(JSON.parse((await run('config', 'get', tenantId)).out)).toMatchObject({ displayName: 'Edited Studio' });
    expect((await run('config', 'diff', tenantId, '--file', file)).out).toMatch(/^no changes/);

    // An invalid config: diff names the problem locally, push is refused by the Worker with every problem; nothing stored.
    await writeFile(
      file,
      JSON.stringify({
        ...edited,
        deadlineMs: 5,
        handoff: { ...(edited as unknown as { handoff: object }).handoff, tag: 'no_such_tag' },
      }),
    );
    await expect(run('config', 'diff', tenantId, '--file', file)).rejects.toThrow(/would be refused[\s\S]*deadlineMs/);
    await expect(run('config', 'push', tenantId, '--file', file)).rejects.toThrow(
      /400 invalid tenant config[\s\S]*deadlineMs[\s\S]*no_such_tag/,
    );
    expect(JSON.parse((await run('config', 'get', tenantId)).out)).toMatchObject({
      displayName: 'Edited Studio',
      deadlineMs: stored.deadlineMs,
    });

    // The webhook secret does not open the config; the demo tenant's admin secret does not open this tenant's.
    await expect(
      runTenantCli(
        ['config', 'get', tenantId, '--admin-secret', created.webhookSecret as string, '--url', stack.facts.workerUrl!],
        () => {},
      ),
    ).rejects.toThrow(/401/);
    await expect(
      runTenantCli(
        ['config', 'get', tenantId, '--admin-secret', stack.facts.demo.adminSecret, '--url', stack.facts.workerUrl!],
        () => {},
      ),
    ).rejects.toThrow(/401/);
  }, 60_000);
});
