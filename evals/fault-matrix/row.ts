import type { FaultEnvironment } from './environment.js';
import type { RowOutcome } from './observe.js';
import type { SentMessage, WebhookAnswer } from './world.js';

/** What a row expects of the delivery; `says` is the semantics in words, for the table. */
export interface Expectation {
  performed: number;
  unknown: number;
  dead: number;
  says: string;
  /** Every webhook answer that is a turn's reply must carry this text (the committed reply, not the fallback). */
  reply?: string;
}

export interface Row {
  name: string;
  /** Rows that stop Redis, pause or fail QStash, or restart the Worker run alone. */
  exclusive: boolean;
  expected: Expectation;
  run(env: FaultEnvironment): Promise<{ messages: SentMessage[]; outcome: RowOutcome; notes?: string[] }>;
}

export interface RowResult {
  name: string;
  webhook: string;
  expected: Expectation;
  outcome: RowOutcome | null;
  /** No loss, no duplicate, and performed / unknown / dead as expected. */
  ok: boolean;
  seconds: number;
  notes: string[];
}

function answerKind(a: WebhookAnswer): string {
  if (a.status !== 200) return `${a.status || 'no answer'}`;
  if (a.storageDown) return '200 held (storage down)';
  if (a.duplicateOf) return '200 duplicate';
  if (a.deferred) return '200 deferred';
  return '200 turn';
}

/** "200 turn×1, 200 duplicate×19; 0.4–3.1 s" */
export function summarizeAnswers(messages: SentMessage[]): string {
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(answerKind(m.answer), (counts.get(answerKind(m.answer)) ?? 0) + 1);
  const kinds = [...counts].map(([k, n]) => (messages.length > 1 ? `${k} ×${n}` : k)).join(', ');
  const ms = messages.map((m) => m.answer.ms);
  const secs = (x: number) => (x / 1000).toFixed(1);
  const range = ms.length > 1 ? `${secs(Math.min(...ms))}–${secs(Math.max(...ms))} s` : `${secs(ms[0] ?? 0)} s`;
  return `${kinds}; ${range}`;
}

export function verdict(expected: Expectation, outcome: RowOutcome, messages: SentMessage[] = []): boolean {
  const replies = messages.filter((m) => m.answer.status === 200 && !m.answer.storageDown);
  return (
    (expected.reply === undefined ||
      (replies.length > 0 && replies.every((m) => m.answer.replyText === expected.reply))) &&
    outcome.lost === 0 &&
    outcome.duplicated === 0 &&
    outcome.performed === expected.performed &&
    outcome.unknown === expected.unknown &&
    outcome.dead === expected.dead
  );
}
