import { V2Content, fieldValueProblem, issueLines, type V2Action, type V2ContentData } from './schemas.js';
import type { PageState, SandboxState, SubscriberState } from './state.js';
import { ReplyError, type ApiRequest, type Reply, type Routed } from './types.js';
import { channelProblems } from './channel-rules.js';

/** ManyChat public API endpoints (protocol doc section 2), answered from SandboxState. */

export interface McContext {
  state: SandboxState;
  page: PageState;
  body: Record<string, unknown>;
  query: URLSearchParams;
  enforceRateLimits: boolean;
}
interface McEndpoint {
  method: 'GET' | 'POST';
  /** Per page key, per endpoint (doc 2.2). */
  perSecond: number;
  handle(ctx: McContext): Reply;
}

const DAY_MS = 24 * 3600_000;
/** Meta's message tags (doc 3.6); ManyChat passes message_tag through, other values are rejected here. */
const MESSAGE_TAGS = ['CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE', 'HUMAN_AGENT'];
const FLOW_HOURLY_PER_SUBSCRIBER = 100;

// ---- envelopes (doc 2.3) ----
export const mcSuccess = (data?: unknown): Reply => ({
  status: 200,
  body: data === undefined ? { status: 'success' } : { status: 'success', data },
});
export const mcError = (status: number, message: string, extra: Record<string, unknown> = {}): Reply => ({
  status,
  body: { status: 'error', message, ...extra },
});
/** A validation failure; `messages` lets callers collect several before answering. */
class McInvalid extends ReplyError {
  constructor(readonly messages: string[]) {
    super(
      mcError(400, `Validation error: ${messages.join('; ')}`, {
        details: { messages: messages.map((message) => ({ message })) },
      }),
    );
  }
}
export const mcInvalid = (...messages: string[]): ReplyError => new McInvalid(messages);

// ---- lookups ----
/** ManyChat ids are ints; a digit string is accepted too (lenient: clients often carry ids as strings). */
function idParam(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (v === undefined || v === null || v === '') throw mcInvalid(`${name} is required`);
  if ((typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && /^\d+$/.test(v)))
    return String(v);
  throw mcInvalid(`${name} must be an integer`);
}
function stringParam(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (v === undefined || v === null || v === '') throw mcInvalid(`${name} is required`);
  if (typeof v !== 'string') throw mcInvalid(`${name} must be a string`);
  return v;
}
function subscriberOf(ctx: McContext, source: Record<string, unknown> = ctx.body): SubscriberState {
  const id = idParam(source, 'subscriber_id');
  // An auto-created subscriber (npm start: anyone who writes in) is on the channel the first call's content names.
  const named = (ctx.body.data as { content?: { type?: unknown } } | undefined)?.content?.type;
  const channel = named === 'instagram' || named === 'whatsapp' || named === 'telegram' ? named : undefined;
  const sub =
    ctx.state.subscriber(ctx.page.pageId, id) ??
    (ctx.state.autoSubscribers
      ? ctx.state.addSubscriber({ pageId: ctx.page.pageId, id, ...(channel ? { channel } : {}) })
      : undefined);
  if (!sub) throw mcInvalid(`Subscriber does not exist: ${id}`);
  return sub;
}
function tagByName(page: PageState, name: string) {
  const tag = page.tags.find((t) => t.name === name);
  if (!tag) throw mcInvalid(`Tag does not exist: "${name}"`);
  return tag;
}
function tagById(page: PageState, id: string) {
  const tag = page.tags.find((t) => String(t.id) === id);
  if (!tag) throw mcInvalid(`Tag does not exist: ${id}`);
  return tag;
}
/** field_name matching is case-insensitive (doc 2.2). */
function fieldByName(page: PageState, name: string) {
  const field = page.customFields.find((f) => f.name.toLowerCase() === name.toLowerCase());
  if (!field) throw mcInvalid(`Custom field does not exist: "${name}"`);
  return field;
}
function fieldById(page: PageState, id: string) {
  const field = page.customFields.find((f) => String(f.id) === id);
  if (!field) throw mcInvalid(`Custom field does not exist: ${id}`);
  return field;
}
function typedValue(field: PageState['customFields'][number], source: Record<string, unknown>, key: string): unknown {
  if (!(key in source)) throw mcInvalid(`${key} is required`);
  const problem = fieldValueProblem(field.type, source[key]);
  if (problem) throw mcInvalid(`${key} for "${field.name}": ${problem}`);
  return source[key];
}
function setField(sub: SubscriberState, fieldId: number, value: unknown): void {
  if (value === null) sub.fields.delete(fieldId);
  else sub.fields.set(fieldId, value);
}

// ---- 24 h window (doc 2.3/2.4): no tag past 24 h -> 3011; HUMAN_AGENT reaches 7 days ----
function checkWindow(ctx: McContext, sub: SubscriberState): void {
  const tag = ctx.body.message_tag;
  const ageMs = ctx.state.now() - Date.parse(sub.lastInteraction);
  if (sub.channel === 'telegram') {
    // Telegram has no messaging window; Meta's message tags mean nothing there.
    if (tag !== undefined && tag !== null) throw mcInvalid('message_tag is not supported for Telegram');
    return;
  }
  if (sub.channel === 'whatsapp') {
    if (tag !== undefined && tag !== null) throw mcInvalid('message_tag is not supported for WhatsApp');
    if (ageMs <= DAY_MS) return;
    throw new ReplyError(
      mcError(
        400,
        "The contact's 24-hour WhatsApp session has expired: only an approved Message Template can be sent outside it",
      ),
    );
  }
  if (tag !== undefined && tag !== null) {
    if (typeof tag !== 'string' || !MESSAGE_TAGS.includes(tag))
      throw mcInvalid(`message_tag must be one of ${MESSAGE_TAGS.join(', ')}`);
    if (tag !== 'HUMAN_AGENT' || ageMs <= 7 * DAY_MS) return;
  } else if (ageMs <= DAY_MS) return;
  throw new ReplyError(
    mcError(
      400,
      'Subscriber last interaction was more than 24 hours ago; a message_tag is required to send outside the window',
      { code: 3011 },
    ),
  );
}

// ---- v2 content checks that need the page (tags, fields, flows must exist) ----
function contentProblems(page: PageState, data: V2ContentData): string[] {
  const problems: string[] = [];
  const flowOk = (target: string, where: string) => {
    if (!page.flows.includes(target)) problems.push(`${where}: flow does not exist: "${target}"`);
  };
  const checkButtons = (buttons: { type: string; target?: unknown }[] | undefined, where: string) =>
    buttons?.forEach((b, i) => {
      if (b.type === 'node') problems.push(`${where}.buttons.${i}: node buttons are not supported via the Public API`);
      if (b.type === 'flow') flowOk(String(b.target), `${where}.buttons.${i}`);
    });
  data.content.messages.forEach((m, i) => {
    const where = `data.content.messages.${i}`;
    if (m.type !== 'file' && m.type !== 'cards') checkButtons(m.buttons, where);
    if (m.type === 'cards') m.elements.forEach((e, j) => checkButtons(e.buttons, `${where}.elements.${j}`));
  });
  data.content.quick_replies?.forEach((q, i) => {
    if (q.type === 'node')
      problems.push(`data.content.quick_replies.${i}: node quick replies are not supported via the Public API`);
    if (q.type === 'flow') flowOk(q.target, `data.content.quick_replies.${i}`);
  });
  data.content.actions?.forEach((a, i) => {
    try {
      if (a.action === 'add_tag' || a.action === 'remove_tag') tagByName(page, a.tag_name);
      else if (a.action === 'set_field_value') typedValue(fieldByName(page, a.field_name), a, 'value');
      else fieldByName(page, a.field_name);
    } catch (err) {
      if (!(err instanceof McInvalid)) throw err;
      problems.push(...err.messages.map((m) => `data.content.actions.${i}: ${m}`));
    }
  });
  return problems;
}
function applyAction(page: PageState, sub: SubscriberState, a: V2Action): void {
  if (a.action === 'add_tag') sub.tagIds.add(tagByName(page, a.tag_name).id);
  else if (a.action === 'remove_tag') sub.tagIds.delete(tagByName(page, a.tag_name).id);
  else if (a.action === 'set_field_value') setField(sub, fieldByName(page, a.field_name).id, a.value);
  else setField(sub, fieldByName(page, a.field_name).id, null);
}

// ---- handlers ----
function sendContent(ctx: McContext): Reply {
  const sub = subscriberOf(ctx);
  if (ctx.body.data === undefined) throw mcInvalid('data is required');
  const parsed = V2Content.safeParse(ctx.body.data);
  if (!parsed.success) throw mcInvalid(...issueLines(parsed.error.issues, 'data'));
  const problems = [...channelProblems(sub.channel, parsed.data), ...contentProblems(ctx.page, parsed.data)];
  if (problems.length) throw mcInvalid(...problems);
  checkWindow(ctx, sub);
  // sendContent processes actions (doc 2.2 notes sendContentByUserRef does NOT), so state changes.
  for (const a of parsed.data.content.actions ?? []) applyAction(ctx.page, sub, a);
  return mcSuccess();
}

function sendFlow(ctx: McContext): Reply {
  const sub = subscriberOf(ctx);
  const flow = stringParam(ctx.body, 'flow_ns');
  if (!ctx.page.flows.includes(flow)) throw mcInvalid(`Flow does not exist: "${flow}"`);
  checkWindow(ctx, sub);
  const key = `${ctx.page.pageId}|sendFlow|${sub.id}`;
  if (ctx.enforceRateLimits && !ctx.state.limiter.tryHit(key, FLOW_HOURLY_PER_SUBSCRIBER, 3600_000)) {
    throw new ReplyError(
      mcError(429, `Too many requests: sendFlow is limited to ${FLOW_HOURLY_PER_SUBSCRIBER} per hour per subscriber`),
    );
  }
  return mcSuccess();
}

function subscriberInfo(page: PageState, sub: SubscriberState) {
  const name = [sub.firstName, sub.lastName].filter(Boolean).join(' ');
  return {
    id: sub.id,
    page_id: page.pageId,
    status: 'active',
    first_name: sub.firstName,
    last_name: sub.lastName,
    name,
    gender: null,
    profile_pic: null,
    locale: null,
    language: null,
    timezone: null,
    live_chat_url: `https://manychat.com/fb${page.pageId}/chat/${sub.id}`,
    last_input_text: null,
    subscribed: sub.lastInteraction,
    last_interaction: sub.lastInteraction,
    last_seen: sub.lastInteraction,
    // The channel's own identity fields (ManyChat's Subscriber schema): null on the other channels.
    ig_id: sub.channel === 'instagram' ? Number(sub.id) : null,
    ig_username: sub.channel === 'instagram' ? `ig_${sub.id}` : null,
    ig_last_interaction: sub.channel === 'instagram' ? sub.lastInteraction : null,
    whatsapp_phone: sub.channel === 'whatsapp' ? `+1555${sub.id.slice(-7)}` : null,
    // Every page field is listed, unset ones with value null.
    custom_fields: page.customFields.map((f) => ({
      id: f.id,
      name: f.name,
      type: f.type,
      description: '',
      value: sub.fields.get(f.id) ?? null,
    })),
    tags: page.tags.filter((t) => sub.tagIds.has(t.id)).map((t) => ({ id: t.id, name: t.name })),
  };
}

function getInfo(ctx: McContext): Reply {
  const sub = subscriberOf(ctx, { subscriber_id: ctx.query.get('subscriber_id') ?? undefined });
  return mcSuccess(subscriberInfo(ctx.page, sub));
}

const tagHandler =
  (add: boolean, byName: boolean) =>
  (ctx: McContext): Reply => {
    const sub = subscriberOf(ctx);
    const tag = byName
      ? tagByName(ctx.page, stringParam(ctx.body, 'tag_name'))
      : tagById(ctx.page, idParam(ctx.body, 'tag_id'));
    if (add) sub.tagIds.add(tag.id);
    else sub.tagIds.delete(tag.id);
    return mcSuccess();
  };

const fieldHandler =
  (byName: boolean) =>
  (ctx: McContext): Reply => {
    const sub = subscriberOf(ctx);
    const field = byName
      ? fieldByName(ctx.page, stringParam(ctx.body, 'field_name'))
      : fieldById(ctx.page, idParam(ctx.body, 'field_id'));
    setField(sub, field.id, typedValue(field, ctx.body, 'field_value'));
    return mcSuccess();
  };

/** All-or-nothing: every entry is validated before any is applied. */
function setCustomFields(ctx: McContext): Reply {
  const sub = subscriberOf(ctx);
  const fields = ctx.body.fields;
  if (!Array.isArray(fields) || fields.length === 0) throw mcInvalid('fields must be a non-empty array');
  if (fields.length > 20) throw mcInvalid('fields must have at most 20 items');
  const updates = fields.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw mcInvalid(`fields.${i} must be an object`);
    const e = entry as Record<string, unknown>;
    const field =
      e.field_id !== undefined
        ? fieldById(ctx.page, idParam(e, 'field_id'))
        : e.field_name !== undefined
          ? fieldByName(ctx.page, stringParam(e, 'field_name'))
          : undefined;
    if (!field) throw mcInvalid(`fields.${i} needs field_id or field_name`);
    return { id: field.id, value: typedValue(field, e, 'field_value') };
  });
  for (const u of updates) setField(sub, u.id, u.value);
  return mcSuccess();
}

// ---- the page API: what a page has (the dashboard's "Import from ManyChat" reads these) ----
function getFlows(ctx: McContext): Reply {
  return mcSuccess({
    flows: ctx.page.flows.map((ns) => ({ ns, name: ctx.page.flowNames[ns] ?? ns, folder_id: null })),
    folders: [],
  });
}
const getTags = (ctx: McContext): Reply => mcSuccess(ctx.page.tags.map((t) => ({ id: t.id, name: t.name })));
const getCustomFields = (ctx: McContext): Reply =>
  mcSuccess(ctx.page.customFields.map((f) => ({ id: f.id, name: f.name, type: f.type, description: '' })));

export const MANYCHAT_ENDPOINTS: Record<string, McEndpoint> = {
  '/fb/page/getFlows': { method: 'GET', perSecond: 10, handle: getFlows },
  '/fb/page/getTags': { method: 'GET', perSecond: 100, handle: getTags },
  '/fb/page/getCustomFields': { method: 'GET', perSecond: 100, handle: getCustomFields },
  '/fb/sending/sendContent': { method: 'POST', perSecond: 25, handle: sendContent },
  '/fb/sending/sendFlow': { method: 'POST', perSecond: 20, handle: sendFlow },
  '/fb/subscriber/getInfo': { method: 'GET', perSecond: 10, handle: getInfo },
  '/fb/subscriber/addTag': { method: 'POST', perSecond: 10, handle: tagHandler(true, false) },
  '/fb/subscriber/addTagByName': { method: 'POST', perSecond: 10, handle: tagHandler(true, true) },
  '/fb/subscriber/removeTag': { method: 'POST', perSecond: 10, handle: tagHandler(false, false) },
  '/fb/subscriber/removeTagByName': { method: 'POST', perSecond: 10, handle: tagHandler(false, true) },
  '/fb/subscriber/setCustomField': { method: 'POST', perSecond: 10, handle: fieldHandler(false) },
  '/fb/subscriber/setCustomFieldByName': { method: 'POST', perSecond: 10, handle: fieldHandler(true) },
  '/fb/subscriber/setCustomFields': { method: 'POST', perSecond: 10, handle: setCustomFields },
};

// ---- request entry: auth -> method -> rate limit -> body -> handler ----
function bearer(headers: Headers): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(headers.get('authorization') ?? '');
  return m?.[1]?.trim();
}

/** The POST body as an object; JSON only, as the real API documents (doc 2.1). */
function bodyObject(req: ApiRequest): Record<string, unknown> {
  if (req.json === undefined) return {};
  if (!/^application\/json\b/i.test(req.headers.get('content-type') ?? ''))
    throw mcInvalid('Content-Type must be application/json');
  if (req.json === 'malformed') throw mcInvalid('Malformed JSON body');
  const v = req.json.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw mcInvalid('Request body must be a JSON object');
  return v as Record<string, unknown>;
}

/**
 * Matches a ManyChat path. Auth failures answer HTTP 401 with the error envelope: the spec
 * declares only 200/400 and the real status for a bad key is undocumented (doc "Open
 * uncertainties" 4). Rate-limit rejections answer 429 without Retry-After for the same reason:
 * the spec documents neither, so clients must cope with a bare 429.
 */
export function routeManyChat(req: ApiRequest, state: SandboxState, enforceRateLimits: boolean): Routed | undefined {
  const ep = MANYCHAT_ENDPOINTS[req.path];
  if (!ep) return undefined;
  const key = bearer(req.headers);
  const page = key ? state.pageByApiKey(key) : undefined;
  return {
    api: 'manychat',
    pageId: page?.pageId,
    run: () => {
      if (!key) return mcError(401, 'Unauthorized: missing "Authorization: Bearer <API key>" header');
      if (!page) return mcError(401, 'Unauthorized: invalid API key');
      if (req.method !== ep.method)
        return mcError(405, `Method ${req.method} not allowed on ${req.path}; use ${ep.method}`);
      if (enforceRateLimits && !state.limiter.tryHit(`${page.pageId}|${req.path}`, ep.perSecond, 1000)) {
        return mcError(
          429,
          `Too many requests: ${req.path} is limited to ${ep.perSecond} requests per second per API key`,
        );
      }
      const body = ep.method === 'GET' ? {} : bodyObject(req);
      return ep.handle({ state, page, body, query: req.query, enforceRateLimits });
    },
  };
}
