import { Cron } from 'croner';
import { randomId, type Engine } from './engine.js';
import { BadRequest, type PublishSpec } from './parse.js';
import type { Message } from './types.js';
import { headerLists, labelAndFlowFields, textOrBase64 } from './views.js';

/**
 * QStash schedules: a cron expression that publishes the same message again and again. Cron
 * timing comes from croner (a maintained, dependency-free cron library) in its 5-field mode,
 * QStash's minute resolution; `CRON_TZ=<zone> ` in front picks the time zone, as QStash allows.
 * Each firing is an ordinary message carrying `scheduleId` (delivered with `Upstash-Schedule-Id`).
 */
export interface ScheduleInput {
  scheduleId?: string;
  cron: string;
  destination: string;
  spec: PublishSpec;
  body: Buffer;
  callerIp?: string;
}

interface Schedule extends Omit<ScheduleInput, 'scheduleId'> {
  scheduleId: string;
  createdAt: number;
  isPaused: boolean;
  lastScheduleTime?: number;
  lastMessageIds: string[];
  job: Cron;
}

const SCHEDULE_ID = /^[A-Za-z0-9._-]+$/;

/** Splits `CRON_TZ=Europe/Lisbon 0 9 * * *` into pattern and zone, and checks both. */
export function parseCron(text: string): { pattern: string; timezone?: string } {
  const trimmed = text.trim();
  const tz = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/.exec(trimmed);
  const pattern = (tz?.[2] ?? trimmed).trim();
  const bad = (why: string) => new BadRequest(`invalid Upstash-Cron header "${text}": ${why}`);
  if (pattern.split(/\s+/).length !== 5)
    throw bad(
      'QStash cron expressions have 5 fields (minute hour day-of-month month day-of-week), optionally after CRON_TZ=<zone>',
    );
  try {
    const probe = new Cron(pattern, { timezone: tz?.[1], paused: true, mode: '5-part' });
    probe.nextRun();
    probe.stop();
  } catch (err) {
    throw bad((err as Error).message);
  }
  return { pattern, ...(tz ? { timezone: tz[1] } : {}) };
}

/** Go's canonical header spelling (content-type → Content-Type), which QStash reports schedules with. */
const canonical = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

const stateOf = (m: Message | undefined) =>
  m === undefined
    ? undefined
    : m.state === 'DELIVERED'
      ? 'SUCCESS'
      : m.state === 'FAILED' || m.state === 'CANCELLED'
        ? 'FAIL'
        : 'IN_PROGRESS';

export class Scheduler {
  private readonly schedules = new Map<string, Schedule>();

  constructor(
    private readonly engine: Engine,
    private readonly log: (line: string) => void,
  ) {}

  /** Creates a schedule, or replaces the settings of the one with the given id. */
  upsert(input: ScheduleInput): string {
    if (input.scheduleId !== undefined && !SCHEDULE_ID.test(input.scheduleId)) {
      throw new BadRequest(
        `invalid Upstash-Schedule-Id "${input.scheduleId}": schedule IDs can only contain alphanumeric characters, hyphens, periods and underscores`,
      );
    }
    const { pattern, timezone } = parseCron(input.cron);
    const scheduleId = input.scheduleId ?? randomId('scd_');
    const previous = this.schedules.get(scheduleId);
    previous?.job.stop();
    const schedule: Schedule = {
      ...input,
      cron: input.cron.trim(),
      scheduleId,
      createdAt: previous?.createdAt ?? Date.now(),
      isPaused: false,
      lastMessageIds: previous?.lastMessageIds ?? [],
      lastScheduleTime: previous?.lastScheduleTime,
      job: new Cron(pattern, { timezone, mode: '5-part', unref: true }, () => void this.fire(schedule)),
    };
    this.schedules.set(scheduleId, schedule);
    this.log(`schedule ${scheduleId} ${previous ? 'updated' : 'created'}: "${schedule.cron}" → ${input.destination}`);
    return scheduleId;
  }

  /** Publishes the schedule's message now, as a cron tick would; undefined for an unknown schedule. */
  fire(schedule: Schedule | string): string | undefined {
    const s = typeof schedule === 'string' ? this.schedules.get(schedule) : schedule;
    if (!s) return undefined;
    // Each firing is new: deduplication and a fixed not-before belong to single publishes.
    const spec: PublishSpec = {
      ...s.spec,
      deduplicationId: undefined,
      contentBasedDeduplication: false,
      notBeforeMs: undefined,
    };
    const { messageId } = this.engine.publish({
      url: s.destination,
      spec,
      body: s.body,
      callerIp: s.callerIp,
      scheduleId: s.scheduleId,
    });
    s.lastScheduleTime = Date.now();
    s.lastMessageIds = [messageId];
    return messageId;
  }

  /** false for an unknown schedule. */
  setPaused(scheduleId: string, paused: boolean): boolean {
    const s = this.schedules.get(scheduleId);
    if (!s) return false;
    s.isPaused = paused;
    if (paused) s.job.pause();
    else s.job.resume();
    return true;
  }

  delete(scheduleId: string): boolean {
    this.schedules.get(scheduleId)?.job.stop();
    return this.schedules.delete(scheduleId);
  }

  get(scheduleId: string): Record<string, unknown> | undefined {
    const s = this.schedules.get(scheduleId);
    return s && this.view(s);
  }

  list(): Record<string, unknown>[] {
    return [...this.schedules.values()].map((s) => this.view(s));
  }

  close(): void {
    for (const s of this.schedules.values()) s.job.stop();
  }

  /** The API's Schedule object. */
  private view(s: Schedule): Record<string, unknown> {
    const { spec } = s;
    const header = { ...spec.forward, ...(spec.contentType === undefined ? {} : { 'content-type': spec.contentType }) };
    const body = s.body.length ? textOrBase64(s.body) : {};
    const next = s.isPaused ? null : s.job.nextRun();
    const states = Object.fromEntries(
      s.lastMessageIds.flatMap((id) => (stateOf(this.engine.get(id)) ? [[id, stateOf(this.engine.get(id))]] : [])),
    );
    return {
      scheduleId: s.scheduleId,
      cron: s.cron,
      createdAt: s.createdAt,
      destination: s.destination,
      method: spec.method ?? 'POST',
      header: headerLists(Object.entries(header).map(([k, v]): [string, string] => [canonical(k), v])),
      ...(body.text !== undefined ? { body: body.text } : body.base64 !== undefined ? { bodyBase64: body.base64 } : {}),
      retries: spec.retries ?? 3,
      ...(spec.delayMs === undefined ? {} : { delay: Math.round(spec.delayMs / 1000) }),
      ...(spec.timeoutMs === undefined ? {} : { timeout: Math.round(spec.timeoutMs / 1000) }),
      ...(spec.retryDelay ? { retryDelayExpression: spec.retryDelay.expression } : {}),
      ...(spec.callback ? { callback: spec.callback } : {}),
      ...(spec.failureCallback ? { failureCallback: spec.failureCallback } : {}),
      ...(s.callerIp ? { callerIp: s.callerIp } : {}),
      isPaused: s.isPaused,
      ...labelAndFlowFields({ labels: spec.labels ?? [], flowControl: spec.flowControl }),
      ...(s.lastScheduleTime === undefined ? {} : { lastScheduleTime: s.lastScheduleTime }),
      ...(next ? { nextScheduleTime: next.getTime() } : {}),
      ...(Object.keys(states).length ? { lastScheduleStates: states } : {}),
    };
  }
}
