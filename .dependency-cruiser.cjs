/**
 * The layers (README "Architecture"): core/ is the ground floor and imports nothing of the
 * project; tools/, guardrails/ and outbox/ are pillars that import core/ and libraries only (never
 * src/, never each other); src/ is the app on top. Production code never imports the local
 * stand-ins, the evals or the tests. `npm test` runs this check before any test.
 */
const PRODUCTION = '\\.test\\.ts$';
const PILLARS = ['tools', 'guardrails', 'outbox'];

module.exports = {
  forbidden: [
    {
      name: 'core-imports-nothing-above',
      comment: 'core/ is the ground floor: it may import only core/ and libraries.',
      severity: 'error',
      from: { path: '^core/', pathNot: PRODUCTION },
      to: { path: '^(src|tools|guardrails|outbox|dev|evals|test)/' },
    },
    ...PILLARS.map((pillar) => ({
      name: `${pillar}-imports-only-core`,
      comment: `${pillar}/ is a pillar: it may import core/ and libraries, never src/ or another pillar.`,
      severity: 'error',
      from: { path: `^${pillar}/`, pathNot: PRODUCTION },
      to: { path: `^(src|dev|evals|test|${PILLARS.filter((p) => p !== pillar).join('|')})/` },
    })),
    {
      name: 'app-does-not-import-dev-evals-tests',
      comment: 'The Worker ships src/ and what it imports: never the local stand-ins, evals or tests.',
      severity: 'error',
      from: { path: '^src/', pathNot: PRODUCTION },
      to: { path: '^(dev|evals|test)/' },
    },
    {
      name: 'no-circular-production-imports',
      comment: 'A cycle between production modules makes the layers meaningless.',
      severity: 'error',
      from: { path: '^(core|tools|guardrails|outbox|src)/', pathNot: PRODUCTION },
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { pathNot: PRODUCTION } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
