import { defineConfig } from 'vitest/config';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // Vitest's default on this 2-core machine is one file at a time (cores − 1). The end-to-end
    // files spend most of their time waiting — on wrangler dev starting, on QStash's retries, on
    // a 12 s model turn — so three at once overlap that waiting with the CPU-bound workerd files.
    // Each of those files starts its own stack on free ports and its own Redis, so they do not meet.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 3),
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['dev/**/*.test.ts', 'test/node/**/*.test.ts', 'evals/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              // The Worker under test talks to the same stand-ins the global setup started.
              bindings: {
                ...inject('workerEnv'),
                REDIS_URL_FOR_TESTS: inject('redisUrl'),
                // The property tests' seed and run count (test/property/fuzz-run.ts); empty: the defaults.
                FUZZ_SEED: process.env.FUZZ_SEED ?? '',
                FUZZ_SCALE: process.env.FUZZ_SCALE ?? '',
              },
            },
          })),
        ],
        test: {
          name: 'workers',
          include: ['core/**/*.test.ts', 'src/**/*.test.ts', 'tools/**/*.test.ts', 'guardrails/**/*.test.ts', 'outbox/**/*.test.ts', 'test/workers/**/*.test.ts', 'test/property/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
