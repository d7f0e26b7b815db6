import { defineConfig } from 'vitest/config';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';

/** End-to-end files: each starts the whole stack with wrangler dev (see the node-e2e project). */
const E2E_FILES = [
  'test/node/slow-turn-e2e.test.ts',
  'test/node/npm-start-e2e.test.ts',
  'test/node/dashboard-browser.test.ts',
  'test/node/tenant-cli-e2e.test.ts',
  'test/node/outbox-e2e.test.ts',
  'test/node/dashboard-look-browser.test.ts',
  'test/node/dashboard-setup-browser.test.ts',
  'test/node/dashboard-delivery-browser.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    projects: [
      {
        // The files that start wrangler dev and wait on it (its start-up, QStash's retries, a 12 s
        // model turn, a browser). Vitest's default on this 2-core machine is one file at a time
        // (cores − 1); these wait far more than they compute, so they run three at once, first
        // (group 0), each on its own stack, free ports and its own Redis. The timing-sensitive
        // in-process tests (leases, deadlines) stay one file at a time in group 1: run alongside
        // others on a loaded machine they missed their timings.
        extends: true,
        test: {
          name: 'node-e2e',
          include: E2E_FILES,
          environment: 'node',
          testTimeout: 30_000,
          maxWorkers: Number(process.env.VITEST_E2E_WORKERS ?? 3),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'node',
          include: ['dev/**/*.test.ts', 'test/node/**/*.test.ts', 'evals/**/*.test.ts'],
          exclude: [...E2E_FILES, '**/node_modules/**'],
          environment: 'node',
          testTimeout: 30_000,
          sequence: { groupOrder: 1 },
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
          sequence: { groupOrder: 1 },
          include: [
            'core/**/*.test.ts',
            'src/**/*.test.ts',
            'tools/**/*.test.ts',
            'guardrails/**/*.test.ts',
            'outbox/**/*.test.ts',
            'test/workers/**/*.test.ts',
            'test/property/**/*.test.ts',
          ],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
