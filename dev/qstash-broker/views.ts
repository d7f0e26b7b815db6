import type { Attempt, DlqEntry, Message, MessageState } from './types.js';

/** Shape of the SDK's `Message` type (plus `state`, which the real API also reports). */
export interface MessageView {
  messageId: string;
  url: string;
  method: string;
  header: Record<string, string[]>;
  body?: string;
  bodyBase64?: string;
  maxRetries: number;
  retryDelayExpression?: string;
  notBefore: number;
  createdAt: number;
  callback?: string;
  failureCallback?: string;
  callerIp?: string;
  scheduleId?: string;
  /** First label only: QStash keeps it for older clients. */
  label?: string;
  labels?: string[];
  flowControlKey?: string;
  parallelism?: number;
  rate?: number;
  /** Seconds. */
  period?: number;
  state: MessageState;
}

/** Dev-only view: everything above plus the attempt log. */
export interface DevMessageView extends MessageView {
  retried: number;
  nextDeliveryAt?: number;
  dlqId?: string;
  attempts: Attempt[];
}

export interface DlqView extends MessageView {
  dlqId: string;
  responseStatus?: number;
  responseHeader?: Record<string, string[]>;
  responseBody?: string;
  responseBodyBase64?: string;
  /** Not in real QStash: why the last attempt failed without a response (timeout, connection refused). */
  error?: string;
}

/** UTF-8 text when the bytes are valid UTF-8, else base64: mirrors QStash's body/bodyBase64 split. */
export function textOrBase64(bytes: Uint8Array): { text?: string; base64?: string } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { base64: Buffer.from(bytes).toString('base64') };
  }
}

export function headerLists(headers: Iterable<[string, string]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of headers) (out[k] ??= []).push(v);
  return out;
}

/** Labels and flow control as QStash reports them on messages, DLQ entries, logs and schedules. */
export function labelAndFlowFields(
  m: Pick<Message, 'labels' | 'flowControl'>,
): Pick<MessageView, 'label' | 'labels' | 'flowControlKey' | 'parallelism' | 'rate' | 'period'> {
  const flow = m.flowControl;
  return {
    ...(m.labels.length ? { label: m.labels[0], labels: [...m.labels] } : {}),
    ...(flow ? { flowControlKey: flow.key } : {}),
    ...(flow?.parallelism === undefined ? {} : { parallelism: flow.parallelism }),
    ...(flow?.rate === undefined ? {} : { rate: flow.rate }),
    ...(flow?.periodSeconds === undefined ? {} : { period: flow.periodSeconds }),
  };
}

export function messageView(m: Message): MessageView {
  const body = textOrBase64(m.body);
  return {
    messageId: m.messageId,
    url: m.url,
    method: m.method,
    header: headerLists(Object.entries(m.header)),
    ...(body.text === undefined ? { bodyBase64: body.base64 } : { body: body.text }),
    maxRetries: m.maxRetries,
    ...(m.retryDelay ? { retryDelayExpression: m.retryDelay.expression } : {}),
    notBefore: m.notBefore,
    createdAt: m.createdAt,
    ...(m.callback ? { callback: m.callback } : {}),
    ...(m.failureCallback ? { failureCallback: m.failureCallback } : {}),
    ...(m.callerIp ? { callerIp: m.callerIp } : {}),
    ...(m.scheduleId ? { scheduleId: m.scheduleId } : {}),
    ...labelAndFlowFields(m),
    state: m.state,
  };
}

export function devMessageView(m: Message): DevMessageView {
  return {
    ...messageView(m),
    retried: Math.max(0, m.attempts.length - 1),
    nextDeliveryAt: m.nextDeliveryAt,
    dlqId: m.dlqId,
    attempts: [...m.attempts],
  };
}

export function dlqView(e: DlqEntry): DlqView {
  const { outcome } = e;
  const body = outcome.body && textOrBase64(outcome.body);
  return {
    ...messageView(e.message),
    dlqId: e.dlqId,
    ...(outcome.status === undefined ? {} : { responseStatus: outcome.status }),
    ...(outcome.headers ? { responseHeader: headerLists(outcome.headers) } : {}),
    ...(body === undefined
      ? {}
      : body.text === undefined
        ? { responseBodyBase64: body.base64 }
        : { responseBody: body.text }),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
}
