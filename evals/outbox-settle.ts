import type { EvalEnvironment } from './environment.js';
import type { TurnObservation } from './turn-observation.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TERMINAL = new Set(['DELIVERED', 'FAILED', 'CANCELLED']);

/**
 * Waits until QStash has finished with the messages that name `entryId` (a turn id, or a pinned
 * row id whose decision wrote an outbox entry under it) and are due within the wait — outbox
 * deliveries, not a deferred turn's delayed finish-turn job — or the timeout.
 */
export async function settleOutbox(
  env: EvalEnvironment,
  entryId: string,
  timeoutMs: number,
): Promise<NonNullable<TurnObservation['outbox']>> {
  const started = Date.now();
  const horizon = started + timeoutMs;
  for (;;) {
    const messages = env.stack.qstash
      .messages()
      .filter((m) => (m.body ?? '').includes(entryId) && m.notBefore <= horizon);
    const done = messages.length > 0 && messages.every((m) => TERMINAL.has(m.state));
    if (done || Date.now() - started > timeoutMs) {
      if (done) await sleep(100); // a stray extra call would show up now
      return {
        messages: messages.map((m) => ({
          state: m.state,
          attempts: m.attempts.map((a) => (a.status !== undefined ? String(a.status) : (a.error ?? '?'))),
        })),
        timedOut: !done,
        waitedMs: Date.now() - started,
      };
    }
    await sleep(50);
  }
}

/** The failure to report when the outbox had not finished and the turn's expectations depend on it. */
export function outboxTimeoutFailure(outbox: TurnObservation['outbox'], needed: boolean): string[] {
  if (!outbox?.timedOut || !needed) return [];
  const what = outbox.messages.length
    ? outbox.messages.map((m) => `${m.state} [${m.attempts.join(',')}]`).join('; ')
    : 'no message published';
  return [`outbox: QStash had not finished with the turn after ${outbox.waitedMs} ms (${what})`];
}
