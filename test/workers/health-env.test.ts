import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { parseEnv, EnvError } from '../../src/env.js';
import { workerEnv } from '../support/workers-env.js';

describe('GET /v1/health', () => {
  it('reports the version, that Redis and QStash answer, and that the offline rule model is configured', async () => {
    const res = await createApp().fetch(new Request('http://worker.test/v1/health'), {
      ...workerEnv,
      OPENAI_API_KEY: '',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      ok: boolean;
      version: string;
      redis: { ok: boolean };
      qstash: { ok: boolean };
      model: { kind: string };
    };
    expect(body).toMatchObject({
      ok: true,
      version: '0.1.0',
      redis: { ok: true },
      qstash: { ok: true },
      model: { kind: 'offline-rule-model' },
    });
  });

  it('says which dependency does not answer (503)', async () => {
    const res = await createApp().fetch(new Request('http://worker.test/v1/health'), {
      ...workerEnv,
      QSTASH_URL: 'http://127.0.0.1:9',
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { qstash: { ok: boolean; error: string }; redis: { ok: boolean } };
    expect(body.redis.ok).toBe(true);
    expect(body.qstash.ok).toBe(false);
  });

  it('names a configured hosted model without its key', async () => {
    const res = await createApp().fetch(new Request('http://worker.test/v1/health'), {
      ...workerEnv,
      OPENAI_API_KEY: 'sk-secret-value',
      OPENAI_API_MODE: 'chat',
    });
    const text = await res.text();
    expect(text).toContain('"kind":"openai"');
    expect(text).not.toContain('sk-secret-value');
  });
});

describe('the environment is validated', () => {
  it('a missing variable fails with its name, and every request says so', async () => {
    const env = { ...workerEnv } as Record<string, unknown>;
    delete env.UPSTASH_REDIS_REST_TOKEN;
    expect(() => parseEnv(env)).toThrow(EnvError);
    const res = await createApp().fetch(new Request('http://worker.test/v1/health'), env);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; details: string[] };
    expect(body.details.join(' ')).toContain('UPSTASH_REDIS_REST_TOKEN');
  });

  it('a malformed variable fails with its name and not its value', async () => {
    const res = await createApp().fetch(new Request('http://worker.test/v1/health'), {
      ...workerEnv,
      QSTASH_URL: 'not a url',
      SESSION_SECRET: 'short',
    });
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(text).toContain('QSTASH_URL');
    expect(text).toContain('SESSION_SECRET');
    expect(text).not.toContain('not a url');
  });

  it('unknown routes answer 404 JSON naming the route', async () => {
    const res = await createApp().fetch(new Request('http://worker.test/v1/nope', { method: 'POST' }), workerEnv);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('no route for POST /v1/nope');
  });
});
