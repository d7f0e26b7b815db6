// @ts-check
/**
 * Mutation testing of the safety core (`npm run test:mutation`; README "Test strength").
 * Runs the safety core's unit tests in plain Node (vitest.mutation.config.ts), never workerd,
 * and without Stryker's TypeScript checker (it fails on TypeScript 7: `ts.parseConfigFileTextToJson
 * is not a function`), so a mutant that would not compile counts as killed or survived on what
 * the tests see. One module at a time: `npm run test:mutation -- --mutate guardrails/pipeline.ts`.
 * Survivors judged equivalent are listed, with the reason, in stryker.equivalents.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  coverageAnalysis: 'perTest',
  // Stryker rewrites the tsconfig's extends/references for its sandbox with the TypeScript API,
  // which TypeScript 7 no longer has (same error as the checker). Our tsconfig has neither, so
  // point Stryker at no file and the rewrite is skipped; vitest does not read the tsconfig.
  tsconfigFile: 'no-tsconfig-for-stryker.json',
  mutate: [
    // The tool manifest, order, envelope and registry.
    'core/tenant/manifest.ts',
    'core/tenant/tool-order.ts',
    'tools/canonical-order.ts',
    'core/tool-envelope.ts',
    'tools/registry.ts',
    // Every guardrail and the pipeline.
    'guardrails/*.ts',
    '!guardrails/*.test.ts',
    // The decision.
    'src/turn/decide-turn.ts',
    // The gates and pending rows.
    'core/tenant/resource-gates.ts',
    // Issue 28 item 5: the PII patterns' bounded DFA and their save-time bounds.
    'core/tenant/pattern-set.ts',
    'core/tenant/tenant-pattern.ts',
    'core/pinned-terms.ts',
    'src/approvals/pending-calls.ts',
    'src/approvals/pending-status.ts',
    'src/approvals/pinned-store.ts',
    // Issue 28: the signing keys, the decisions and delivery's re-check of the signed row.
    'core/security/signing-keys.ts',
    'src/approvals/signed-row-check.ts',
    'src/approvals/decide-approval.ts',
    'src/approvals/answer-confirmation.ts',
    // Canonical JSON.
    'core/canonical-json.ts',
    // The ledger, the commit and the delivery state machine.
    'outbox/ledger.ts',
    'outbox/commit.ts',
    'src/turn/commit-turn.ts',
    'outbox/deliver-entry.ts',
    'outbox/dead-letters.ts',
  ],
  // Two test processes (the machine has two cores); a mutant that loops is cut off 5 s past its tests' normal time.
  concurrency: 2,
  timeoutMS: 5_000,
  tempDirName: '.stryker-tmp',
  // Not copied into the sandbox: other runs' sandboxes and reports, the stand-ins' local state.
  ignorePatterns: ['.stryker-tmp', 'reports', '.local', '.wrangler', 'evals/reports'],
  cleanTempDir: true,
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
};
