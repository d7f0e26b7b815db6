import { turnForm, type EvalCase } from './case-format.js';
import { setupCaseWorld, type CaseWorld, type EvalEnvironment } from './environment.js';
import { caseInvariantFailures } from './invariants.js';
import { promptReuseShares, tenantRequestBodies } from './prompt-reuse.js';
import { cacheUseOf, type RequestCacheUse } from './prompt-cache.js';
import { runDecisionTurn } from './run-decision-turn.js';
import { runWebhookTurn } from './run-webhook-turn.js';
import { runMessengerTurn } from './run-messenger-turn.js';
import { runReconfigureTurn } from './run-reconfigure-turn.js';
import { newCaseState, type RunCaseOptions, type TurnObservation, type Variant } from './turn-observation.js';

export { describeTurn } from './describe-turn.js';
export { deadlineExpectation, deadlinePath, turnLatencies } from './model-script.js';
export { callView } from './manychat-calls.js';
export type { DeadlinePath, RunCaseOptions, TurnObservation, Variant } from './turn-observation.js';

export interface CaseResult {
  name: string;
  file: string;
  variant: Variant;
  repeat: number;
  tenantId: string | null;
  passed: boolean;
  failures: string[];
  turns: TurnObservation[];
  error?: string;
  ms: number;
  /** Per model request after the tenant's first: the share of its prompt identical to the previous request's. */
  promptReuse?: number[];
  /** Per request of the case's tenant: what a provider's prompt cache would bill (evals/prompt-cache.ts). */
  promptCache?: RequestCacheUse[];
  /** Whether the case's tenant hedged slow model calls. */
  hedging: boolean;
  /** False: the run turned the tool shortlist off for the case's tenant. */
  shortlist: boolean;
}

/**
 * One case end to end: its own tenant, page and contacts; then each turn in order — a message or
 * a button press through the ManyChat webhook, or a tenant decision through the tenant API / the
 * cron — observed and checked against the turn's expectations.
 */
export async function runCase(env: EvalEnvironment, c: EvalCase, opts: RunCaseOptions): Promise<CaseResult> {
  const started = performance.now();
  const label = opts.variant === 'product' ? c.name : `${c.name}~naive`;
  let world: CaseWorld | null = null;
  const turns: TurnObservation[] = [];
  try {
    world = await setupCaseWorld(env, c, label, { hedging: opts.hedging, shortlist: opts.shortlist ?? true });
    const state = newCaseState();
    for (const [i, turn] of c.turns.entries()) {
      const form = turnForm(turn);
      if (form === 'reconfigure') turns.push(await runReconfigureTurn(env, world, turn, i));
      else if (c.channel === 'messenger') turns.push(await runMessengerTurn(env, world, turn, i, opts, state));
      else
        turns.push(
          form === 'text' || form === 'press'
            ? await runWebhookTurn(env, world, turn, i, opts, state)
            : await runDecisionTurn(env, world, turn, i, state),
        );
    }
  } catch (err) {
    return {
      name: label,
      file: c.file,
      variant: opts.variant,
      repeat: opts.repeat,
      hedging: opts.hedging,
      shortlist: opts.shortlist ?? true,
      tenantId: world?.tenantId ?? null,
      passed: false,
      failures: [`the case could not run: ${err instanceof Error ? err.message : String(err)}`],
      turns,
      error: String(err),
      ms: performance.now() - started,
    };
  }
  const failures = [
    ...turns.flatMap((t) => t.failures.map((f) => `turn ${t.index + 1}: ${f}`)),
    ...caseInvariantFailures(turns),
  ];
  return {
    name: label,
    file: c.file,
    variant: opts.variant,
    repeat: opts.repeat,
    hedging: opts.hedging,
    shortlist: opts.shortlist ?? true,
    tenantId: world.tenantId,
    passed: failures.length === 0,
    failures,
    turns,
    ms: performance.now() - started,
    ...promptFigures(tenantRequestBodies(env, world)),
  };
}

function promptFigures(bodies: Record<string, unknown>[]): Pick<CaseResult, 'promptReuse' | 'promptCache'> {
  return { promptReuse: promptReuseShares(bodies), promptCache: cacheUseOf(bodies) };
}
