import { createApp, defaultServices } from './app.js';
import { parseEnv } from './env.js';
import { DEFAULT_SWEEP_AFTER_MS, sweepOutbox } from '../outbox/sweeper.js';

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron (wrangler.toml `triggers.crons`): the outbox sweeper publishes stuck entries again. */
  async scheduled(_controller, env) {
    const services = defaultServices(parseEnv(env));
    const result = await sweepOutbox({ session: services.redis(), publisher: services.publisher(), olderThanMs: DEFAULT_SWEEP_AFTER_MS });
    // Counts and ids only; publish errors carry no secrets (QStash's own error text).
    console.log(`outbox sweep: ${result.tenants} tenants, ${result.stale} stale, ${result.published} published, ${result.failed} failed`);
    for (const e of result.errors) console.warn(`outbox sweep: ${e}`);
  },
} satisfies ExportedHandler<Record<string, unknown>>;
