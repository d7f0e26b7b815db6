import type { Message } from './types.js';

/**
 * Flow control per `Upstash-Flow-Control-Key`: at most `parallelism` attempts of the key's messages
 * in flight at once, and at most `rate` attempts started per `period` (default 1 s). Each message
 * brings its own limits (QStash applies the key's latest ones; with one publisher they agree).
 * A message over the parallelism limit waits in the key's queue until an attempt of the key ends;
 * one over the rate waits until the current period is over.
 */
export type Admission = { kind: 'go' } | { kind: 'queued' } | { kind: 'later'; at: number };

export class FlowGate {
  private readonly active = new Map<string, number>();
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly queues = new Map<string, Message[]>();

  /** Counts the message in when it may start now; otherwise says when (or that it must queue). */
  admit(msg: Message, now: number): Admission {
    const flow = msg.flowControl;
    if (!flow) return { kind: 'go' };
    const active = this.active.get(flow.key) ?? 0;
    if (flow.parallelism !== undefined && active >= flow.parallelism) {
      const queue = this.queues.get(flow.key) ?? [];
      if (!queue.includes(msg)) queue.push(msg);
      this.queues.set(flow.key, queue);
      return { kind: 'queued' };
    }
    if (flow.rate !== undefined) {
      const periodMs = (flow.periodSeconds ?? 1) * 1000;
      let window = this.windows.get(flow.key);
      if (!window || now >= window.start + periodMs) this.windows.set(flow.key, (window = { start: now, count: 0 }));
      if (window.count >= flow.rate) return { kind: 'later', at: window.start + periodMs };
      window.count++;
    }
    this.active.set(flow.key, active + 1);
    return { kind: 'go' };
  }

  /** An attempt of `msg` ended: frees its slot and hands back the key's queued messages to try again. */
  release(msg: Message): Message[] {
    const key = msg.flowControl?.key;
    if (key === undefined) return [];
    this.active.set(key, Math.max(0, (this.active.get(key) ?? 1) - 1));
    const queued = this.queues.get(key) ?? [];
    this.queues.delete(key);
    return queued;
  }
}
