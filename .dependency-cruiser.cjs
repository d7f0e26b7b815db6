/**
 * The layers (README "Architecture"): core/ is the ground floor and imports nothing of the
 * project; tools/, guardrails/ and outbox/ are pillars that import core/ and libraries only (never
 * src/, never each other); src/ is the app on top. Production code never imports the local
 * stand-ins, the evals or the tests; dev/ and evals/ are cruised too (they may import the product). `npm test`
 * runs this check before any test.
 */
const PRODUCTION = '\\.test\\.ts$';
const PILLARS = ['tools', 'guardrails', 'outbox'];
/**
 * Inside src/: the engine (the turn and what it runs on: Hono-free, runnable from a test, a CLI or
 * a queue) and the app (the Hono edges: channel webhooks, routes, dashboard, http wiring). The
 * engine never imports the app or Hono; the app composes the engine.
 */
const ENGINE = '^src/(turn|models|approvals|replay|tenants|observability)/';
const APP = '^src/(channels|routes|dashboard|http)/|^src/(app|index|scheduled)\\.tsx?$';
/**
 * What the engine may read of the app's folders: a channel's definition (its capabilities and how
 * it renders buttons: Hono-free, see the rule below) and the types of the services bag.
 */
const ENGINE_PORTS =
  '^src/channels/(index|channel)\\.ts$|^src/channels/[^/]+/(channel|signed-quick-replies|quick-replies)\\.ts$|^src/http/app-context\\.ts$';

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
      name: 'engine-does-not-import-app',
      comment:
        'The turn engine (src/turn, models, approvals, replay, tenants, observability) never imports a route, a channel webhook, the dashboard or the http wiring; only the channel definitions and the services types (ENGINE_PORTS).',
      severity: 'error',
      from: { path: ENGINE, pathNot: PRODUCTION },
      to: { path: APP, pathNot: ENGINE_PORTS },
    },
    {
      name: 'engine-does-not-import-hono',
      comment: "The engine is Hono-free: a request is the app's business, the engine gets plain values.",
      severity: 'error',
      from: { path: `${ENGINE}|${ENGINE_PORTS}`, pathNot: PRODUCTION },
      to: { path: '(^|/)node_modules/hono/' },
    },
    {
      name: 'engine-ports-import-no-app',
      comment:
        'The part of the app the engine may read imports nothing else of the app (else the engine would reach the app through it).',
      severity: 'error',
      from: { path: ENGINE_PORTS, pathNot: PRODUCTION },
      to: { path: APP, pathNot: ENGINE_PORTS },
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
