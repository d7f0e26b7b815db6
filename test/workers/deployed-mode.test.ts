import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { EnvError, parseEnv } from '../../src/env.js';
import { weakKeyRingProblems, weakSecretProblems } from '../../src/env-strength.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { secretKeysFrom } from '../../core/tenant/tenant-secrets.js';
import { demoTenantConfig, DEMO_MANYCHAT_API_KEY } from '../../dev/demo-tenant.js';
import { newContact, sandboxCallsFor, session, uniqueId, workerEnv } from '../support/workers-env.js';
import { tenantKeys } from '../../core/storage/keys.js';

function randomText(bytes: number): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(bytes))));
}

/** A deployed Worker's environment with strong secrets, pointed at the same local stand-ins. */
function deployedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...workerEnv,
    ENVIRONMENT: 'production',
    OPENAI_API_KEY: '',
    SESSION_SECRET: randomText(32),
    SECRETS_HASH_KEY: randomText(32),
    OPERATOR_SECRET: randomText(32),
    SECRETS_ENCRYPTION_KEYS: `k1:${randomText(32)}`,
    ...extra,
  };
}

async function seedUnder(env: Record<string, string>) {
  const tenantId = uniqueId('t');
  const secret = randomText(24);
  const saved = await saveTenant(session(), demoTenantConfig(tenantId), {
    plain: { webhookSecret: secret, adminSecret: randomText(24), manychatApiKey: DEMO_MANYCHAT_API_KEY },
    keys: await secretKeysFrom(env.SECRETS_ENCRYPTION_KEYS!, env.SECRETS_HASH_KEY!),
  });
  if (!saved.ok) throw new Error(saved.problems.join('; '));
  return { tenantId, secret };
}

function webhook(env: Record<string, string>, tenantId: string, secret: string, contactId: string) {
  return createApp().fetch(
    new Request(`http://worker.test/v1/manychat/${tenantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-staged-agent-secret': secret },
      body: JSON.stringify({ contact: { id: contactId, first_name: 'Ada' }, text: 'Can you send me the brochure?' }),
    }),
    env,
  );
}

describe('a deployed Worker without a model key', () => {
  it('refuses to answer contacts with the offline rule model: 503 naming the fix, nothing claimed or performed', async () => {
    const env = deployedEnv();
    const { tenantId, secret } = await seedUnder(env);
    const contactId = await newContact();
    const res = await webhook(env, tenantId, secret, contactId);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string };
    expect(body.error).toContain('OPENAI_API_KEY');
    expect(body.error).toContain('ALLOW_OFFLINE_MODEL=true');
    expect(res.headers.get('x-turn-id')).toBeNull();
    const turns = await session().one((r) => r.zcard(tenantKeys(tenantId).contactTurns(contactId)));
    expect(turns).toBe(0);
    expect(await sandboxCallsFor(contactId)).toEqual([]);
  });

  it('reports degraded on /v1/health (503, ok false, the problem named)', async () => {
    const res = await createApp().fetch(new Request('http://worker.test/v1/health'), deployedEnv());
    expect(res.status).toBe(503);
    const body = (await res.json()) as {
      ok: boolean;
      status: string;
      environment: string;
      degraded: string[];
      model: { kind: string };
      redis: { ok: boolean };
    };
    expect(body).toMatchObject({
      ok: false,
      status: 'degraded',
      environment: 'deployed',
      model: { kind: 'none' },
      redis: { ok: true },
    });
    expect(body.degraded.join(' ')).toContain('OPENAI_API_KEY');
  });

  it('answers with the offline rule model only when ALLOW_OFFLINE_MODEL=true says so, and health still says degraded', async () => {
    const env = deployedEnv({ ALLOW_OFFLINE_MODEL: 'true' });
    const { tenantId, secret } = await seedUnder(env);
    const res = await webhook(env, tenantId, secret, await newContact());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-turn-id')).toMatch(/^turn_/);
    const health = await createApp().fetch(new Request('http://worker.test/v1/health'), env);
    expect(health.status).toBe(200);
    const body = (await health.json()) as { ok: boolean; status: string; degraded: string[]; model: { kind: string } };
    expect(body).toMatchObject({ ok: true, status: 'degraded', model: { kind: 'offline-rule-model' } });
    expect(body.degraded).toHaveLength(1);
  });

  it('unauthenticated health checks do not each cost a Redis and a QStash call: the probes are cached for a few seconds', async () => {
    const env = { ...workerEnv, OPENAI_API_KEY: '' };
    const { HEALTH_CACHE_MS } = await import('../../src/routes/health.js');
    expect(HEALTH_CACHE_MS).toBeGreaterThanOrEqual(2000);
    expect(HEALTH_CACHE_MS).toBeLessThanOrEqual(10_000);
    const read = async () =>
      (await (await createApp().fetch(new Request('http://worker.test/v1/health'), env)).json()) as {
        checkedAt: string;
        redis: { ok: boolean };
      };
    const [a, b, c] = [await read(), await read(), await read()];
    expect(a.redis.ok).toBe(true);
    expect(typeof a.checkedAt).toBe('string');
    expect(b.checkedAt).toBe(a.checkedAt);
    expect(c.checkedAt).toBe(a.checkedAt);
  });

  it('the local stack (ENVIRONMENT=local) answers with the offline rule model and is healthy', async () => {
    const res = await createApp().fetch(new Request('http://worker.test/v1/health'), {
      ...workerEnv,
      OPENAI_API_KEY: '',
    });
    const body = (await res.json()) as { status: string; environment: string; degraded: string[] };
    expect(body).toMatchObject({ status: 'ok', environment: 'local', degraded: [] });
  });
});

describe('weak secrets are refused in deployed mode', () => {
  it("refuses the example file's placeholder, the local stack's secrets and short ones, naming each variable and never its value", async () => {
    const env = deployedEnv({
      SESSION_SECRET: 'change-me-to-32-random-characters',
      SECRETS_HASH_KEY: workerEnv.SECRETS_HASH_KEY!,
      OPERATOR_SECRET: 'x'.repeat(40),
      SECRETS_ENCRYPTION_KEYS: workerEnv.SECRETS_ENCRYPTION_KEYS!,
    });
    expect(() => parseEnv(env)).toThrow(EnvError);
    const res = await createApp().fetch(new Request('http://worker.test/v1/health'), env);
    expect(res.status).toBe(500);
    const text = await res.text();
    for (const name of ['SESSION_SECRET', 'SECRETS_HASH_KEY', 'OPERATOR_SECRET', 'SECRETS_ENCRYPTION_KEYS'])
      expect(text).toContain(name);
    for (const value of [
      'change-me-to-32',
      workerEnv.SECRETS_HASH_KEY!,
      'x'.repeat(40),
      workerEnv.SECRETS_ENCRYPTION_KEYS!,
    ])
      expect(text).not.toContain(value);
  });

  it('accepts random secrets, and the same weak ones locally', () => {
    expect(() => parseEnv(deployedEnv())).not.toThrow();
    expect(() => parseEnv({ ...workerEnv })).not.toThrow();
    expect(weakSecretProblems(randomText(32))).toEqual([]);
    expect(weakSecretProblems('a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p')).toHaveLength(1); // 31 characters
    expect(weakSecretProblems('abababababababababababababababababab')).toHaveLength(1);
    expect(weakKeyRingProblems(`k2:${randomText(32)},k1:${randomText(32)}`)).toEqual([]);
    expect(weakKeyRingProblems(`k2:${randomText(32)},k1:${btoa('\u0007'.repeat(32))}`)).toEqual([
      expect.stringContaining('key 2'),
    ]);
  });
});
