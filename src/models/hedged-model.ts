import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { HedgeRecord } from '../../core/turn-record.js';

/** Sent on the second request of a hedged pair, so a recorder (the local model sandbox) can tell them apart. */
export const HEDGE_HEADER = 'x-staged-agent-hedge';

export interface HedgeOptions {
  /**
   * Send the same request again when the first has not answered after this long; asked as each
   * call starts, since the delay depends on what is left of the turn's time (hedge-timing.ts).
   */
  afterMs: () => number;
  /** Asked when the timer fires: may a hedge be sent now (the tenant's per-minute cap)? */
  mayHedge: () => boolean;
  /** Each model call that started a hedge, once the pair has settled. */
  onHedge: (record: HedgeRecord) => void;
}

type Settled =
  { ok: true; result: LanguageModelV4GenerateResult; ms: number } | { ok: false; error: unknown; ms: number };

/**
 * A model whose calls are hedged: when a call has not answered after `afterMs`, the same request
 * is sent again and the first valid answer wins; the other request is aborted. This is safe here,
 * and only here, because a model call has no side effect: tools run after the call returns (the
 * AI SDK executes the winner's tool calls only), and our tools only stage. So a hedged pair is one
 * model step — it never doubles a staged action, a pending row or a commit.
 *
 * A call that fails before the hedge starts fails at once (an error is not slowness); after the
 * hedge starts, a failure of either waits for the other.
 */
export function hedgedModel(model: LanguageModelV4, options: HedgeOptions): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doStream: (call) => model.doStream(call),
    doGenerate: (call) => raceCalls(model, call, options),
  };
}

async function raceCalls(
  model: LanguageModelV4,
  call: LanguageModelV4CallOptions,
  options: HedgeOptions,
): Promise<LanguageModelV4GenerateResult> {
  const started = performance.now();
  const afterMs = options.afterMs();
  const primary = linkedController(call.abortSignal);
  const first = settle(model.doGenerate({ ...call, abortSignal: primary.signal }), started);
  const timer = delay(afterMs);
  const early = await Promise.race([first, timer.elapsed]);
  timer.cancel();
  if (early !== 'timeout') return unwrap(early);
  if (call.abortSignal?.aborted || !options.mayHedge()) return unwrap(await first);

  const hedgeStartedAt = performance.now();
  const second = linkedController(call.abortSignal);
  const hedge = settle(
    model.doGenerate({ ...call, abortSignal: second.signal, headers: { ...call.headers, [HEDGE_HEADER]: '1' } }),
    hedgeStartedAt,
  );
  const calls = [
    first.then((s) => ({ who: 'primary' as const, s })),
    hedge.then((s) => ({ who: 'hedge' as const, s })),
  ];
  let winner = await Promise.race(calls);
  // The first to settle failed: the other may still answer.
  if (!winner.s.ok) winner = await (winner.who === 'primary' ? calls[1]! : calls[0]!);
  const loser = winner.who === 'primary' ? second : primary;
  loser.abort(new Error('the other call of a hedged pair answered first'));
  const [p, h] = await Promise.all([first, hedge]);
  options.onHedge({
    afterMs,
    winner: winner.s.ok ? winner.who : 'neither',
    primaryMs: Math.round(p.ms),
    hedgeMs: Math.round(h.ms),
    primaryAborted: winner.who === 'hedge' && winner.s.ok,
    hedgeAborted: winner.who === 'primary' && winner.s.ok,
    ...(winner.s.ok
      ? { inputTokens: winner.s.result.usage.inputTokens.total, outputTokens: winner.s.result.usage.outputTokens.total }
      : {}),
  });
  return unwrap(winner.s.ok ? winner.s : p);
}

function settle(call: PromiseLike<LanguageModelV4GenerateResult>, started: number): Promise<Settled> {
  return Promise.resolve(call).then(
    (result) => ({ ok: true as const, result, ms: performance.now() - started }),
    (error: unknown) => ({ ok: false as const, error, ms: performance.now() - started }),
  );
}

function unwrap(s: Settled): LanguageModelV4GenerateResult {
  if (s.ok) return s.result;
  throw s.error;
}

/** An abort controller that also aborts when the caller's signal does (the turn's deadline). */
function linkedController(parent: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', () => controller.abort(parent.reason), { once: true });
  return controller;
}

/** Resolves 'timeout' after `ms` unless cancelled; never rejects (an abort lets the primary's own failure speak). */
function delay(ms: number): { elapsed: Promise<'timeout'>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return { elapsed, cancel: () => clearTimeout(timer) };
}
