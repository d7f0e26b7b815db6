import type { FilterSubject, LogState } from './filters.js';
import type { Message, Outcome } from './types.js';
import { headerLists, labelAndFlowFields } from './views.js';

/**
 * QStash's logs (`GET /v2/events`, `/v2/logs`): one entry per state change of a message, newest
 * first. States follow QStash's lifecycle: CREATED, ACTIVE (an attempt starts), DELIVERED, or
 * ERROR (the attempt failed) followed by RETRY (another attempt is due) or FAILED (moved to the
 * DLQ); a cancel logs CANCEL_REQUESTED then CANCELLED. Kept in memory, the newest MAX_EVENTS.
 */
export interface LogEvent {
  /** Orders events and backs the cursor: later events have larger numbers. */
  seq: number;
  time: number;
  state: LogState;
  message: Message;
  nextDeliveryTime?: number;
  outcome?: Outcome;
}

const MAX_EVENTS = 20_000;

export class EventLog {
  private readonly events: LogEvent[] = [];
  private seq = 0;

  record(message: Message, state: LogState, extra: { nextDeliveryTime?: number; outcome?: Outcome } = {}): void {
    this.events.push({ seq: ++this.seq, time: Date.now(), state, message, ...extra });
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
  }

  /** Oldest first; callers page through it in either direction by `seq`. */
  all(): readonly LogEvent[] {
    return this.events;
  }
}

export function logSubject(e: LogEvent): FilterSubject {
  const m = e.message;
  return {
    messageId: m.messageId,
    url: m.url,
    time: e.time,
    labels: m.labels,
    flowControlKey: m.flowControl?.key,
    scheduleId: m.scheduleId,
    callerIp: m.callerIp,
    responseStatus: e.outcome?.status,
    state: e.state,
  };
}

/** The API's LogEntry: bodies base64, error and response fields only on ERROR entries. */
export function logView(e: LogEvent): Record<string, unknown> {
  const m = e.message;
  const o = e.outcome;
  return {
    time: e.time,
    state: e.state,
    messageId: m.messageId,
    url: m.url,
    method: m.method,
    header: headerLists(Object.entries(m.header)),
    body: m.body.toString('base64'),
    maxRetries: m.maxRetries,
    timeout: m.timeoutMs,
    ...(m.retryDelay ? { retryDelayExpression: m.retryDelay.expression } : {}),
    ...(m.callback ? { callback: m.callback } : {}),
    ...(m.failureCallback ? { failureCallback: m.failureCallback } : {}),
    ...(m.scheduleId ? { scheduleId: m.scheduleId } : {}),
    ...(m.callerIp ? { callerIp: m.callerIp } : {}),
    ...labelAndFlowFields(m),
    ...(e.nextDeliveryTime === undefined ? {} : { nextDeliveryTime: e.nextDeliveryTime }),
    ...(o === undefined ? {} : { error: o.error ?? `the destination answered HTTP ${o.status}` }),
    ...(o?.status === undefined ? {} : { responseStatus: o.status }),
    ...(o?.body === undefined ? {} : { responseBody: o.body.toString('base64') }),
    ...(o?.headers === undefined ? {} : { responseHeaders: headerLists(o.headers) }),
  };
}
