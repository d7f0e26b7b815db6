import type { MiddlewareHandler } from 'hono';
import { EnvError, parseEnv } from '../../env.js';
import type { AppContext, Services } from '../app-context.js';
import { jsonError } from '../errors.js';

/**
 * Parses the environment (once per isolate) and gives the request its services and its Redis
 * session. A misconfigured Worker answers 500 naming the variables, never their values.
 */
export function provideServices(build: (env: ReturnType<typeof parseEnv>) => Services): MiddlewareHandler<AppContext> {
  return async (c, next) => {
    c.set('startedAt', performance.now());
    let env;
    try {
      env = parseEnv(c.env);
    } catch (err) {
      if (err instanceof EnvError) return jsonError(c, 500, 'the Worker is misconfigured', err.problems);
      throw err;
    }
    const services = build(env);
    c.set('services', services);
    c.set('session', services.redis());
    await next();
  };
}
