import { createApp, defaultServices } from './app.js';
import { parseEnv } from './env.js';
import { runScheduledWork } from './scheduled.js';

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron (wrangler.toml `triggers.crons`): the outbox sweeper and approval expiry. */
  async scheduled(_controller, env) {
    await runScheduledWork(defaultServices(parseEnv(env)));
  },
} satisfies ExportedHandler<Record<string, unknown>>;
