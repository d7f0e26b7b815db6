import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The unit tests of the safety core, in plain Node (no workerd), for the mutation run
 * (stryker.config.mjs, `npm run test:mutation`). Every module these cover runs in Node; storage
 * tests reach the real Redis through the Upstash REST stand-in the global setup starts, and
 * `cloudflare:test` is the workers project's environment (test/support/node-cloudflare-test.ts).
 * `npm test` does not use this file: there these tests run in workerd.
 */
export const SAFETY_CORE_TESTS = [
  'core/tool-envelope.test.ts',
  'core/canonical-json.test.ts',
  'core/tenant/manifest.test.ts',
  'core/tenant/tool-order.test.ts',
  'core/tenant/resource-gates.test.ts',
  // Issue 28 item 5: the PII patterns' bounded DFA and the save's bounds on them.
  'core/tenant/pattern-set.test.ts',
  'core/tenant/guardrail-settings.test.ts',
  'core/pinned-terms.test.ts',
  // The per-purpose signing keys (issue 28) behind pinned terms, buttons and cookies.
  'core/security/**/*.test.ts',
  'core/actions/**/*.test.ts',
  'tools/**/*.test.ts',
  'guardrails/**/*.test.ts',
  'src/turn/decide-turn.test.ts',
  'src/turn/judge-turn.test.ts',
  'src/turn/commit-turn.test.ts',
  'src/approvals/**/*.test.ts',
  'outbox/**/*.test.ts',
  // The delivery state machine against the ManyChat sandbox (already a Node test).
  'test/node/outbox-deliver.test.ts',
  // Entries that no longer parse, vanish or outlive their retention: listed, never silently gone.
  'test/node/outbox-never-silently-gone.test.ts',
];

/**
 * MUTATION_TESTS (comma-separated globs) narrows the set for a one-module run on a loaded machine,
 * e.g. `MUTATION_TESTS='guardrails/**\/*.test.ts' npm run test:mutation -- --mutate guardrails/x.ts`:
 * the dry run then skips the storage and outbox tests that cannot cover a guardrail.
 */
const only = process.env.MUTATION_TESTS?.split(',').filter(Boolean);

export default defineConfig({
  resolve: {
    alias: { 'cloudflare:test': fileURLToPath(new URL('./test/support/node-cloudflare-test.ts', import.meta.url)) },
  },
  test: {
    globalSetup: ['./test/global-setup.ts'],
    include: only?.length ? only : SAFETY_CORE_TESTS,
    environment: 'node',
    testTimeout: 30_000,
  },
});
