import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { manyChatRoutes } from './channels/manychat/route.js';
import { messengerRoutes } from './channels/messenger/route.js';
import { messengerAppRoutes } from './channels/messenger/app-route.js';
import { tenantApiRoutes } from './routes/tenant-api.js';
import { handoffReleaseRoutes } from './routes/handoff-release.js';
import { finishTurnRoutes } from './routes/finish-turn.js';
import type { AppEnv } from './env.js';
import { secretKeysFrom, type SecretKeys } from '../core/tenant/tenant-secrets.js';
import { SecretKeyError } from '../core/security/secret-box.js';
import type { AppContext, Services } from './http/app-context.js';
import { jsonError, safeErrorText } from './http/errors.js';
import { isStorageFailure } from './http/storage-failure.js';
import { healthRoute } from './routes/health.js';
import { provideServices } from './http/middleware/services.js';
import { selectModel } from './models/select-model.js';
import { RedisSession } from '../core/storage/redis-session.js';
import { defaultGuardrails } from '../guardrails/default-guardrails.js';
import { qstashPublisher } from '../outbox/publisher.js';
import { qstashTurnJobs } from '../outbox/finish-turn-publisher.js';
import { qstashInboundRetries } from '../outbox/inbound-retry-publisher.js';
import { inboundRetryRoutes } from './routes/inbound-retry.js';
import { operatorRoutes } from './routes/operator.js';
import { dataDeletionRoutes } from './routes/data-deletion.js';
import { deadLetterRoutes } from './routes/dead-letters.js';
import { deliveryRoutes } from './routes/outbox-delivery.js';
import { ModelUnavailableError } from './models/model-availability.js';
import { dashboardRoutes } from './dashboard/routes.js';

export function defaultServices(env: AppEnv): Services {
  return {
    env,
    redis: () => RedisSession.connect(env.UPSTASH_REDIS_REST_URL, env.UPSTASH_REDIS_REST_TOKEN),
    publisher: () =>
      qstashPublisher({ qstashUrl: env.QSTASH_URL, qstashToken: env.QSTASH_TOKEN, publicUrl: env.PUBLIC_URL }),
    turnJobs: () =>
      qstashTurnJobs({ qstashUrl: env.QSTASH_URL, qstashToken: env.QSTASH_TOKEN, publicUrl: env.PUBLIC_URL }),
    inboundRetries: () =>
      qstashInboundRetries({ qstashUrl: env.QSTASH_URL, qstashToken: env.QSTASH_TOKEN, publicUrl: env.PUBLIC_URL }),
    model: (config) => selectModel(env, config),
    guardrails: defaultGuardrails,
    fetch: (input, init) => fetch(input, init),
    secretKeys: () => secretKeysOf(env),
  };
}

const keysByEnv = new WeakMap<AppEnv, Promise<SecretKeys>>();
/** Parsed once per environment object (an isolate's); a malformed ring fails every request that needs it, naming the variable. */
function secretKeysOf(env: AppEnv): Promise<SecretKeys> {
  let keys = keysByEnv.get(env);
  if (!keys) {
    keys = secretKeysFrom(env.SECRETS_ENCRYPTION_KEYS, env.SECRETS_HASH_KEY);
    keysByEnv.set(env, keys);
  }
  return keys;
}

export type ServiceOverrides = (services: Services) => Services;

/** The Worker's Hono app. `override` lets tests swap the model or a client, nothing else. */
export function createApp(override?: ServiceOverrides) {
  const app = new Hono<AppContext>();
  app.use(secureHeaders());
  app.use(provideServices((env) => (override ? override(defaultServices(env)) : defaultServices(env))));
  app.route('/v1/health', healthRoute());
  app.route('/v1/manychat', manyChatRoutes());
  // Before the tenant API: its `/:tenant/*` auth middleware would otherwise run a second time.
  app.route('/v1/tenants', handoffReleaseRoutes());
  app.route('/v1/tenants', tenantApiRoutes());
  app.route('/v1/turns', finishTurnRoutes());
  app.route('/v1/inbound', inboundRetryRoutes());
  app.route('/v1/operator', operatorRoutes());
  app.route('/v1/messenger', dataDeletionRoutes());
  // Before the per-tenant routes: `/app/:appId` is one Meta app's callback, not a tenant named "app".
  app.route('/v1/messenger', messengerAppRoutes());
  app.route('/v1/messenger', messengerRoutes());
  app.route('/v1/outbox', deliveryRoutes());
  app.route('/v1/outbox/dead-letters', deadLetterRoutes());
  app.route('/dashboard', dashboardRoutes());
  app.notFound((c) => jsonError(c, 404, `no route for ${c.req.method} ${new URL(c.req.url).pathname}`));
  app.onError((err, c) => {
    // Redis not answering is an outage to wait out, not a bug: QStash retries a 503 (honouring
    // Retry-After), a caller is told to try again.
    if (isStorageFailure(err)) {
      console.warn(`storage unavailable: ${err.name}`);
      c.header('Retry-After', '30');
      return jsonError(c, 503, 'storage is unavailable; retry later');
    }
    // A deployed Worker with no model key: loud, named, and no silent offline answers.
    if (err instanceof ModelUnavailableError) {
      console.error(err.message);
      return jsonError(c, 503, err.message);
    }
    // The operator's keys cannot open a tenant's secrets (they are opened to authenticate the
    // request): loud and named in the log, but the caller has not authenticated, so it gets the
    // 401 any unauthenticated request gets, without the key id.
    if (err instanceof SecretKeyError) {
      console.error(`tenant secrets cannot be opened: ${err.message}`);
      return jsonError(c, 401, 'the request could not be authenticated');
    }
    // The error's name and the head of its message only: bodies, headers and the Upstash client's
    // "command was: …" tail may carry secrets or a contact's words.
    console.error(`unhandled ${err.name}: ${safeErrorText(err)}`);
    return jsonError(c, 500, 'internal error');
  });
  return app;
}
