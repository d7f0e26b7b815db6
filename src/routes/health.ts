import { Hono } from 'hono';
import type { AppContext } from '../http/app-context.js';
import { safeErrorText } from '../http/errors.js';

async function probe(run: () => Promise<unknown>, timeoutMs = 1500): Promise<{ ok: boolean; ms: number; error?: string }> {
  const started = performance.now();
  try {
    await Promise.race([run(), new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs))]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, ms: Math.round(performance.now() - started), error: safeErrorText(err) };
  }
}

/** `GET /v1/health` — version, and whether Redis and QStash answer and which model is configured. */
export function healthRoute() {
  const app = new Hono<AppContext>();
  app.get('/', async (c) => {
    const { env } = c.get('services');
    const session = c.get('session');
    const [redisProbe, qstashProbe] = await Promise.all([
      probe(async () => {
        const pong = await session.one((r) => r.ping());
        if (pong !== 'PONG') throw new Error(`unexpected PING reply ${String(pong)}`);
      }),
      probe(async () => {
        const res = await fetch(`${env.QSTASH_URL.replace(/\/$/, '')}/v2/keys`, { headers: { authorization: `Bearer ${env.QSTASH_TOKEN}` } });
        if (!res.ok) throw new Error(`QStash answered ${res.status}`);
      }),
    ]);
    const model = env.OPENAI_API_KEY
      ? { kind: 'openai', configured: true, customBaseUrl: Boolean(env.OPENAI_BASE_URL), apiMode: env.OPENAI_API_MODE }
      : { kind: 'offline-rule-model', configured: true, note: 'no OPENAI_API_KEY: the offline rule model answers' };
    const ok = redisProbe.ok && qstashProbe.ok;
    return c.json({ ok, version: env.APP_VERSION, redis: redisProbe, qstash: qstashProbe, model }, ok ? 200 : 503);
  });
  return app;
}
