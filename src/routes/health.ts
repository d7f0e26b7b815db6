import { Hono } from 'hono';
import type { AppContext } from '../http/app-context.js';
import { safeErrorText } from '../http/errors.js';
import { modelAvailability } from '../models/model-availability.js';
import { isDeployed } from '../env.js';

async function probe(
  run: () => Promise<unknown>,
  timeoutMs = 1500,
): Promise<{ ok: boolean; ms: number; error?: string }> {
  const started = performance.now();
  try {
    await Promise.race([
      run(),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs)),
    ]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, ms: Math.round(performance.now() - started), error: safeErrorText(err) };
  }
}

/**
 * The health route needs no authentication, so each request must not cost a Redis and a QStash
 * call: a healthy answer is shared for a few seconds per isolate and backend. A failing one is
 * probed again on the next request (an outage is reported as soon as, and for as long as, it lasts).
 */
export const HEALTH_CACHE_MS = 5000;
type Probe = Awaited<ReturnType<typeof probe>>;
const probeCache = new Map<string, { at: number; probes: Promise<[Probe, Probe]> }>();

/** `GET /v1/health` — version, and whether Redis and QStash answer and which model is configured. */
export function healthRoute() {
  const app = new Hono<AppContext>();
  app.get('/', async (c) => {
    const { env } = c.get('services');
    const session = c.get('session');
    const cacheKey = `${env.UPSTASH_REDIS_REST_URL}|${env.QSTASH_URL}`;
    const now = Date.now();
    let cached = probeCache.get(cacheKey);
    if (!cached || now - cached.at >= HEALTH_CACHE_MS) {
      if (probeCache.size > 16) probeCache.clear();
      cached = { at: now, probes: runProbes() };
      probeCache.set(cacheKey, cached);
    }
    const [redisProbe, qstashProbe] = await cached.probes;
    if (!redisProbe.ok || !qstashProbe.ok) probeCache.delete(cacheKey);
    const checkedAt = new Date(cached.at).toISOString();
    function runProbes(): Promise<[Probe, Probe]> {
      return Promise.all([
        probe(async () => {
          const pong = await session.one((r) => r.ping());
          if (pong !== 'PONG') throw new Error(`unexpected PING reply ${String(pong)}`);
        }),
        probe(async () => {
          const res = await fetch(`${env.QSTASH_URL.replace(/\/$/, '')}/v2/keys`, {
            headers: { authorization: `Bearer ${env.QSTASH_TOKEN}` },
          });
          if (!res.ok) throw new Error(`QStash answered ${res.status}`);
        }),
      ]);
    }
    const availability = modelAvailability(env);
    const model =
      availability.kind === 'openai'
        ? {
            kind: 'openai',
            configured: true,
            customBaseUrl: Boolean(env.OPENAI_BASE_URL),
            apiMode: env.OPENAI_API_MODE,
          }
        : availability.kind === 'offline-rule-model'
          ? {
              kind: 'offline-rule-model',
              configured: true,
              note: availability.degraded
                ? 'no OPENAI_API_KEY: the offline rule model answers contacts (ALLOW_OFFLINE_MODEL=true)'
                : 'no OPENAI_API_KEY: the offline rule model answers',
            }
          : { kind: 'none', configured: false, error: availability.problem };
    // Degraded: something a business would not want to run on, said loudly. A Worker that cannot
    // answer contacts at all (no model) is not ok, as when Redis or QStash do not answer.
    const degraded = [
      ...(availability.kind === 'none' ? [availability.problem] : []),
      ...(availability.kind === 'offline-rule-model' && availability.degraded
        ? ['contacts are answered by the offline rule model, not a hosted model']
        : []),
    ];
    const ok = redisProbe.ok && qstashProbe.ok && availability.kind !== 'none';
    const status = !ok
      ? availability.kind === 'none' && redisProbe.ok && qstashProbe.ok
        ? 'degraded'
        : 'down'
      : degraded.length
        ? 'degraded'
        : 'ok';
    return c.json(
      {
        ok,
        status,
        degraded,
        checkedAt,
        environment: isDeployed(env) ? 'deployed' : 'local',
        version: env.APP_VERSION,
        redis: redisProbe,
        qstash: qstashProbe,
        model,
      },
      ok ? 200 : 503,
    );
  });
  return app;
}
