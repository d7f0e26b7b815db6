import { Hono } from 'hono';
import { parseEnv, EnvError } from './env.js';

export type Bindings = Record<string, unknown>;

export function createApp() {
  const app = new Hono<{ Bindings: Bindings }>();
  app.get('/v1/health', (c) => {
    try {
      const env = parseEnv(c.env);
      return c.json({ ok: true, version: env.APP_VERSION });
    } catch (err) {
      if (err instanceof EnvError) return c.json({ ok: false, error: err.message }, 500);
      throw err;
    }
  });
  return app;
}
