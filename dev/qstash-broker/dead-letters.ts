import type { FilterSubject } from './filters.js';
import type { DlqEntry, Message, Outcome } from './types.js';

/** The DLQ: failed messages with their last outcome, in the order they failed. */
export class DeadLetters {
  private readonly entries = new Map<string, DlqEntry>();
  private seq = 0;

  add(message: Message, outcome: Outcome): DlqEntry {
    const seq = ++this.seq;
    const entry: DlqEntry = { dlqId: `${Date.now()}-${seq}`, seq, message, outcome };
    this.entries.set(entry.dlqId, entry);
    return entry;
  }

  get(dlqId: string): DlqEntry | undefined {
    return this.entries.get(dlqId);
  }

  delete(dlqId: string): boolean {
    return this.entries.delete(dlqId);
  }

  /** Oldest first. */
  all(): DlqEntry[] {
    return [...this.entries.values()];
  }
}

export function dlqSubject(e: DlqEntry): FilterSubject {
  const m = e.message;
  return {
    messageId: m.messageId,
    url: m.url,
    time: m.createdAt,
    labels: m.labels,
    flowControlKey: m.flowControl?.key,
    scheduleId: m.scheduleId,
    callerIp: m.callerIp,
    responseStatus: e.outcome.status,
  };
}
