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

/** Files at once in group 0 (vitest requires one value per group): the e2e files and the workers project. */
const GROUP0_WORKERS = Number(process.env.VITEST_E2E_WORKERS ?? 3);

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
          maxWorkers: GROUP0_WORKERS,
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
          // Beside the end-to-end files (group 0): they mostly wait on wrangler dev, this project
          // mostly computes, so the two share the cores well; the timing-sensitive node files follow.
          sequence: { groupOrder: 0 },
          maxWorkers: GROUP0_WORKERS,
          // One module graph for every file in the runner instead of a fresh one per file: the
          // per-file import of the Worker's graph into workerd was ~85 % of this project's time
          // (485 s of vitest at 10af9fe with ~44 s of tests; 51 s like this). The price: a test may
          // not rely on module state being fresh (counters, per-isolate caches); each test file
          // seeds its own tenants, and runs with a shuffled file order
          // (`--sequence.shuffle.files --sequence.seed=N`) are how we check it.
          isolate: false,
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
