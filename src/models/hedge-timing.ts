/**
 * When a model call is hedged (sent again, first answer wins: src/models/hedged-model.ts).
 *
 * A fixed delay is wrong at both ends of a turn. On a turn's first call, with most of the webhook's
 * budget ahead, a hedge at 3.5 s is early: about one call in ten is slower than that, and most of
 * those still answer in time. On the second call of a two-step turn, a hedge at 3.5 s is late: with
 * 4 s left, a fresh call sent then has no time to answer. So the delay is the tenant's `afterMs`,
 * brought forward when what is left before the webhook must answer would no longer leave a fresh
 * call `freshCallMs` (about the time one call needs to answer nine times in ten) to answer in.
 *
 * Measured on the eval's latency model (`npm run eval -- --estimate`): at afterMs 4.5 s and
 * freshCallMs 3.5 s the deferred share falls and so do the extra calls, against a fixed 3.5 s
 * (docs/evals-and-benchmarks.md, "Deadline-aware hedging").
 */
export interface HedgeTiming {
  /** The latest a slow call is hedged. */
  afterMs: number;
  /**
   * Time a fresh call needs to answer about nine times in ten: the hedge goes out at least this
   * long before the answer is due. 0: the fixed `afterMs` alone.
   */
  freshCallMs: number;
}

/** Never sooner than this: a call this young is not slow, and hedging it would double every call. */
export const MIN_HEDGE_DELAY_MS = 500;

/**
 * The hedge delay for a call that starts with `msLeft` ms before the webhook must answer
 * (`Infinity` when nobody waits: a deferred or Messenger turn, whose reply goes through the outbox).
 */
export function hedgeDelayMs(timing: HedgeTiming, msLeft: number): number {
  if (!Number.isFinite(msLeft) || timing.freshCallMs <= 0) return timing.afterMs;
  return Math.min(timing.afterMs, Math.max(MIN_HEDGE_DELAY_MS, Math.round(msLeft - timing.freshCallMs)));
}
