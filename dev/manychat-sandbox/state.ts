import { createHash, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import {
  FaultSchema,
  MessengerPageSchema,
  PageSchema,
  SubscriberSchema,
  fieldValueProblem,
  type PageInput,
} from './schemas.js';
import type { CallFilter, FaultSpec, MessengerPage, RecordedCall } from './types.js';

/** In-memory world of the sandbox: pages, subscribers, recorded calls, pending faults, rate logs. */

export type PageState = PageInput;
export interface SubscriberState {
  pageId: string;
  id: string;
  firstName: string;
  lastName: string;
  lastInteraction: string;
  /** The ManyChat channel the contact writes on. */
  channel: 'facebook' | 'instagram' | 'whatsapp' | 'telegram';
  tagIds: Set<number>;
  /** field id -> value */
  fields: Map<number, unknown>;
  /** Handover Protocol: the app that holds the thread (set by pass_thread_control); absent: ours (the Primary Receiver) or idle. */
  threadOwnerAppId?: string;
}
export interface FixtureIssue {
  path: string;
  message: string;
}

/** A fixture that failed validation; `issues` name the bad fields. */
export class FixtureError extends Error {
  constructor(readonly issues: FixtureIssue[]) {
    super(`invalid fixture: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  }
}

function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new FixtureError(
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message })),
    );
  }
  return parsed.data;
}

/** Hashing first gives equal-length buffers, so timingSafeEqual never leaks the length. */
function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
function secretEquals(a: Buffer, b: string): boolean {
  return timingSafeEqual(a, digest(b));
}

/** True when `pattern` is the whole path or a "/"-led suffix of it ("/messages", "/addTag"). */
export function pathMatches(path: string, pattern: string): boolean {
  return path === pattern || (pattern.startsWith('/') && path.endsWith(pattern));
}

/** Sliding-log limiter: exact counts over the window, fine for sandbox volumes. */
export class RateLimiter {
  private logs = new Map<string, number[]>();
  constructor(private readonly now: () => number) {}

  count(key: string, windowMs: number): number {
    const cutoff = this.now() - windowMs;
    const log = (this.logs.get(key) ?? []).filter((t) => t > cutoff);
    this.logs.set(key, log);
    return log.length;
  }
  hit(key: string): void {
    const log = this.logs.get(key) ?? [];
    log.push(this.now());
    this.logs.set(key, log);
  }
  /** Records the hit and returns true when it fits under `limit` in the window. */
  tryHit(key: string, limit: number, windowMs: number): boolean {
    if (this.count(key, windowMs) >= limit) return false;
    this.hit(key);
    return true;
  }
  clear(): void {
    this.logs.clear();
  }
}

interface PendingFault extends FaultSpec {
  remaining: number;
}

export class SandboxState {
  readonly pages = new Map<string, PageState & { keyDigest: Buffer }>();
  readonly messengerPages = new Map<string, MessengerPage & { tokenDigest: Buffer }>();
  private readonly subscribers = new Map<string, SubscriberState>();
  private calls: RecordedCall[] = [];
  private seq = 0;
  private faults: PendingFault[] = [];
  readonly limiter: RateLimiter;
  /**
   * ManyChat for a live business: anyone who wrote to the page is a subscriber. On, an API call
   * naming an unknown subscriber of a known page creates it (just interacted, no tags or fields)
   * instead of answering "Subscriber does not exist". `npm start` turns it on; tests keep it off.
   */
  autoSubscribers = false;

  constructor(readonly now: () => number) {
    this.limiter = new RateLimiter(now);
  }

  /** Adds or replaces a ManyChat page. */
  addPage(input: unknown): PageState {
    const page = parseOrThrow(PageSchema, input);
    const clash = [...this.pages.values()].find((p) => p.pageId !== page.pageId && p.apiKey === page.apiKey);
    if (clash) throw new FixtureError([{ path: 'apiKey', message: `already used by page ${clash.pageId}` }]);
    this.pages.set(page.pageId, { ...page, keyDigest: digest(page.apiKey) });
    return page;
  }

  /** Adds or replaces a Messenger page (Send API access token). */
  addMessengerPage(input: unknown): MessengerPage {
    const page = parseOrThrow(MessengerPageSchema, input);
    this.messengerPages.set(page.pageId, { ...page, tokenDigest: digest(page.accessToken) });
    return page;
  }

  /** Adds or replaces a subscriber; its tags and fields must exist on its ManyChat page. */
  addSubscriber(input: unknown): SubscriberState {
    const s = parseOrThrow(SubscriberSchema, input);
    const page = this.pages.get(s.pageId);
    if (!page && !this.messengerPages.has(s.pageId))
      throw new FixtureError([{ path: 'pageId', message: `unknown page ${s.pageId}` }]);
    const issues: FixtureIssue[] = [];
    const tagIds = new Set<number>();
    for (const [i, name] of (s.tags ?? []).entries()) {
      const tag = page?.tags.find((t) => t.name === name);
      if (tag) tagIds.add(tag.id);
      else issues.push({ path: `tags.${i}`, message: `unknown tag "${name}" on page ${s.pageId}` });
    }
    const fields = new Map<number, unknown>();
    for (const [name, value] of Object.entries(s.customFields ?? {})) {
      const field = page?.customFields.find((f) => f.name.toLowerCase() === name.toLowerCase());
      const problem = field ? fieldValueProblem(field.type, value) : `unknown custom field on page ${s.pageId}`;
      if (problem || !field) issues.push({ path: `customFields.${name}`, message: problem ?? 'unknown field' });
      else fields.set(field.id, value);
    }
    if (issues.length) throw new FixtureError(issues);
    const state: SubscriberState = {
      pageId: s.pageId,
      id: s.id,
      firstName: s.firstName ?? '',
      lastName: s.lastName ?? '',
      lastInteraction: s.lastInteraction ?? new Date(this.now()).toISOString(),
      channel: s.channel ?? 'facebook',
      tagIds,
      fields,
    };
    this.subscribers.set(`${s.pageId}|${s.id}`, state);
    return state;
  }

  subscriber(pageId: string, id: string): SubscriberState | undefined {
    return this.subscribers.get(`${pageId}|${id}`);
  }

  /** Records an inbound message from the contact now (or at `at`), reopening the 24 h window. */
  touch(pageId: string, id: string, at = new Date(this.now()).toISOString()): SubscriberState | undefined {
    const sub = this.subscriber(pageId, id);
    if (sub) sub.lastInteraction = at;
    return sub;
  }

  /** Compares against every key (no early exit), so timing reveals nothing about which matched. */
  pageByApiKey(key: string): PageState | undefined {
    let found: PageState | undefined;
    for (const page of this.pages.values()) if (secretEquals(page.keyDigest, key)) found = page;
    return found;
  }
  messengerPageByToken(token: string): MessengerPage | undefined {
    let found: MessengerPage | undefined;
    for (const page of this.messengerPages.values()) if (secretEquals(page.tokenDigest, token)) found = page;
    return found;
  }

  addFault(input: unknown): FaultSpec {
    const fault = parseOrThrow(FaultSchema, input);
    this.faults.push({ ...fault, remaining: fault.count });
    return fault;
  }
  pendingFaults(): FaultSpec[] {
    return this.faults.map(({ remaining, ...f }) => ({ ...f, count: remaining }));
  }
  /** Consumes one use of the first fault that matches this call. */
  takeFault(path: string, pageId: string | undefined): FaultSpec | undefined {
    const fault = this.faults.find((f) => (!f.path || pathMatches(path, f.path)) && (!f.pageId || f.pageId === pageId));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }

  /** Stores the call now (so hung calls are visible); the caller fills status/response later. */
  record(call: Omit<RecordedCall, 'seq' | 'at'>): RecordedCall {
    const rec: RecordedCall = { seq: ++this.seq, at: new Date(this.now()).toISOString(), ...call };
    this.calls.push(rec);
    return rec;
  }
  listCalls(filter: CallFilter = {}): RecordedCall[] {
    return this.calls
      .filter(
        (c) =>
          (filter.since === undefined || c.seq > filter.since) &&
          (!filter.pageId || c.pageId === filter.pageId) &&
          (!filter.api || c.api === filter.api) &&
          (!filter.path || pathMatches(c.path, filter.path)),
      )
      .map((c) => structuredClone(c));
  }

  /** Clears calls, faults and rate-limit logs; fixtures and their state stay. seq keeps counting so old `since` cursors stay valid. */
  reset(): void {
    this.calls = [];
    this.faults = [];
    this.limiter.clear();
  }
}
