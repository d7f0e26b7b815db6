import { inject } from 'vitest';

/**
 * `cloudflare:test` for the Node-only mutation run (vitest.mutation.config.ts): the same
 * environment the workers project binds (the global setup's `workerEnv`), so a unit test that
 * needs only the Worker's variables (secret keys, URLs of the stand-ins) runs in plain Node.
 */
export const env: Record<string, string> = inject('workerEnv');
