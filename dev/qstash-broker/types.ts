import type { FlowControl, PublishSpec } from './parse.js';

/** CREATED/RETRY = waiting for a timer, ACTIVE = attempt in flight, FAILED = moved to the DLQ. */
export type MessageState = 'CREATED' | 'RETRY' | 'ACTIVE' | 'DELIVERED' | 'FAILED' | 'CANCELLED';

export interface Attempt {
  /** Value of `Upstash-Retried` on this attempt. */
  retried: number;
  at: number;
  durationMs: number;
  status?: number;
  error?: string;
  responseBody?: string;
}

/** One message as the broker keeps it: what was published, plus its delivery state. */
export interface Message {
  messageId: string;
  url: string;
  method: string;
  header: Record<string, string>;
  body: Buffer;
  maxRetries: number;
  retryDelay?: PublishSpec['retryDelay'];
  timeoutMs: number;
  notBefore: number;
  createdAt: number;
  callback?: string;
  failureCallback?: string;
  callerIp?: string;
  /** `Upstash-Label` values, in the order given. */
  labels: string[];
  flowControl?: FlowControl;
  /** Set when a schedule created the message. */
  scheduleId?: string;
  /** Callback deliveries never trigger callbacks of their own. */
  isCallback: boolean;
  state: MessageState;
  attempts: Attempt[];
  nextDeliveryAt?: number;
  timer?: NodeJS.Timeout;
  dlqId?: string;
}

/** What one delivery attempt got back: a response, or an error (timeout, connection refused). */
export interface Outcome {
  status?: number;
  headers?: Headers;
  body?: Buffer;
  error?: string;
}

export interface DlqEntry {
  dlqId: string;
  /** Orders the DLQ and its cursors; later entries have larger numbers. */
  seq: number;
  message: Message;
  outcome: Outcome;
}

export interface NewMessage {
  url: string;
  spec: PublishSpec;
  body: Buffer;
  callerIp?: string;
  scheduleId?: string;
}
