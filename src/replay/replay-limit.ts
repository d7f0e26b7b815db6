import { Ratelimit } from '@upstash/ratelimit';
import { rateLimitKeys } from '../../guardrails/rate-limit.js';
import type { RedisSession } from '../../core/storage/redis-session.js';

/**
 * A tenant's replays, limited with @upstash/ratelimit sliding windows (as the login and the
 * webhook limits are): runs per minute, and recorded turns per minute (a run of 100 turns takes
 * 100 tokens), so a replay — guardrails and possibly a configured model on every turn — cannot
 * crowd the tenant's live turns. Keys live under the tenant's `rl:` prefix and expire with
 * their window. A run refused for its turns gives its run token back (as the webhook's limits
 * refund), so a too-large run does not also cost the tenant a run.
 */
export const REPLAY_RUNS_PER_MINUTE = { tokens: 6, window: '60 s' } as const;
export const REPLAY_TURNS_PER_MINUTE = { tokens: 300, window: '60 s' } as const;

/** `too-large`: the run alone exceeds the per-minute turns (no wait helps: narrow it); `limited`: wait `retryAfterSeconds`. */
export type ReplayAllowance =
  | { ok: true }
  | { ok: false; kind: 'too-large'; message: string }
  | { ok: false; kind: 'limited'; retryAfterSeconds: number; message: string };

export async function replayAllowed(redis: RedisSession, tenantId: string, turns: number): Promise<ReplayAllowance> {
  const client = redis.redis as unknown as ConstructorParameters<typeof Ratelimit>[0]['redis'];
  const prefix = rateLimitKeys(tenantId).replay;
  const make = (limit: { tokens: number; window: `${number} s` }, name: string) =>
    new Ratelimit({
      redis: client,
      limiter: Ratelimit.slidingWindow(limit.tokens, limit.window),
      prefix: `${prefix}:${name}`,
      ephemeralCache: false,
      timeout: 0,
      analytics: false,
      enableProtection: false,
      enableTelemetry: false,
    });
  if (turns > REPLAY_TURNS_PER_MINUTE.tokens)
    return {
      ok: false,
      kind: 'too-large',
      message: `a replay takes at most ${REPLAY_TURNS_PER_MINUTE.tokens} turns (this one has ${turns}); narrow the selection`,
    };
  redis.roundTrips += 1;
  const runLimiter = make(REPLAY_RUNS_PER_MINUTE, 'runs');
  const runs = await runLimiter.limit('tenant');
  if (!runs.success)
    return refused(runs.reset, `too many replays: at most ${REPLAY_RUNS_PER_MINUTE.tokens} a minute per tenant`);
  if (turns === 0) return { ok: true };
  redis.roundTrips += 1;
  const replayedTurns = await make(REPLAY_TURNS_PER_MINUTE, 'turns').limit('tenant', { rate: turns });
  if (!replayedTurns.success) {
    redis.roundTrips += 1;
    await runLimiter.limit('tenant', { rate: -1 });
    return refused(
      replayedTurns.reset,
      `too many replayed turns: at most ${REPLAY_TURNS_PER_MINUTE.tokens} a minute per tenant (this replay has ${turns})`,
    );
  }
  return { ok: true };
}

function refused(reset: number, why: string): ReplayAllowance {
  const retryAfterSeconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
  return { ok: false, kind: 'limited', retryAfterSeconds, message: `${why}; try again in ${retryAfterSeconds} s` };
}
