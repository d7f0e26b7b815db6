import { z } from 'zod';
import type { FieldType } from './types.js';

/** Zod schemas for fixtures, faults and ManyChat v2 content (protocol doc 1.3). */

const numericId = z.string().regex(/^\d+$/, 'must be a numeric string');
const isoDateTime = z.iso.datetime({ offset: true });

function unique<T>(items: T[], key: (t: T) => string | number): boolean {
  return new Set(items.map(key)).size === items.length;
}

export const PageSchema = z
  .strictObject({
    pageId: numericId,
    apiKey: z.string().min(1),
    tags: z.array(z.strictObject({ id: z.int().positive(), name: z.string().min(1) })).default([]),
    customFields: z
      .array(
        z.strictObject({
          id: z.int().positive(),
          name: z.string().min(1),
          type: z.enum(['text', 'number', 'date', 'datetime', 'boolean']),
        }),
      )
      .default([]),
    flows: z.array(z.string().min(1)).default([]),
    /** The title ManyChat shows for a flow (getFlows' `name`); absent: the ns itself. */
    flowNames: z.record(z.string(), z.string().min(1)).default({}),
  })
  .superRefine((page, ctx) => {
    if (!page.apiKey.startsWith(`${page.pageId}:`) || page.apiKey.length <= page.pageId.length + 1) {
      ctx.addIssue({ code: 'custom', path: ['apiKey'], message: 'must have the form "<pageId>:<secret>"' });
    }
    if (!unique(page.tags, (t) => t.id) || !unique(page.tags, (t) => t.name)) {
      ctx.addIssue({ code: 'custom', path: ['tags'], message: 'tag ids and names must be unique' });
    }
    // Field names are matched case-insensitively (setCustomFieldByName), so they must differ case-insensitively.
    const fields = page.customFields;
    if (!unique(fields, (f) => f.id) || !unique(fields, (f) => f.name.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: ['customFields'], message: 'field ids and names must be unique' });
    }
  });
export type PageInput = z.infer<typeof PageSchema>;

export const SubscriberSchema = z.strictObject({
  pageId: numericId,
  id: numericId,
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  lastInteraction: isoDateTime.optional(),
  customFields: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()).optional(),
  /** The ManyChat channel the contact writes on (default Facebook): what sendContent must be shaped for. */
  channel: z.enum(['facebook', 'instagram', 'whatsapp', 'telegram']).optional(),
});

export const MessengerPageSchema = z.strictObject({ pageId: numericId, accessToken: z.string().min(1) });

export const FaultSchema = z.strictObject({
  path: z.string().startsWith('/').optional(),
  pageId: z.string().min(1).optional(),
  count: z.int().min(1).max(100_000),
  kind: z.enum(['429', '500', '502', '503', '504', 'hang', 'slow']),
  retryAfterSeconds: z.int().min(0).max(86_400).optional(),
  delayMs: z.int().min(0).max(120_000).optional(),
});

/** "a.b.0: message" lines, for error bodies that name the bad field. */
export function issueLines(issues: readonly z.core.$ZodIssue[], prefix = ''): string[] {
  return issues.map((i) => {
    const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
    return path ? `${path}: ${i.message}` : i.message;
  });
}

/** ManyChat field_value typing (protocol doc 2.2); null clears the field. Returns a problem or undefined. */
export function fieldValueProblem(type: FieldType, value: unknown): string | undefined {
  if (value === null) return undefined;
  const ok =
    type === 'text'
      ? typeof value === 'string'
      : type === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : type === 'boolean'
          ? typeof value === 'boolean'
          : type === 'date'
            ? z.iso.date().safeParse(value).success
            : isoDateTime.safeParse(value).success;
  if (ok) return undefined;
  const want = {
    text: 'a string',
    number: 'a number',
    boolean: 'a boolean',
    date: 'a "YYYY-MM-DD" string',
    datetime: 'an ISO 8601 date-time with offset',
  };
  return `value must be ${want[type]} for a ${type} field`;
}

// ---- v2 content (Dynamic Block format, used by sendContent's `data`) ----

const caption = z.string().min(1);
const httpsUrl = z.url({ protocol: /^https$/ });
const callback = {
  url: z.url(),
  method: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  payload: z.unknown().optional(),
};

const Button = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('url'),
    caption,
    url: z.url(),
    webview_size: z.enum(['full', 'medium', 'compact']).optional(),
  }),
  z.looseObject({ type: z.literal('call'), caption, phone: z.string().min(1) }),
  z.looseObject({ type: z.literal('flow'), caption, target: z.string().min(1) }),
  z.looseObject({ type: z.literal('node'), caption, target: z.string().min(1) }),
  z.looseObject({ type: z.literal('buy'), caption }),
  z.looseObject({ type: z.literal('dynamic_block_callback'), caption, ...callback }),
]);
const buttons = z.array(Button).optional();
const media = (type: 'image' | 'video' | 'audio') => z.looseObject({ type: z.literal(type), url: z.url(), buttons });
const Card = z.looseObject({
  title: z.string().min(1),
  subtitle: z.string().optional(),
  image_url: z.url().optional(),
  action_url: z.url().optional(),
  buttons,
});

const Message = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string().min(1), buttons }),
  media('image'),
  media('video'),
  media('audio'),
  z.looseObject({ type: z.literal('file'), url: z.url() }),
  z.looseObject({
    type: z.literal('cards'),
    elements: z.array(Card).min(1),
    image_aspect_ratio: z.enum(['horizontal', 'square']).optional(),
  }),
]);

export const Action = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('add_tag'), tag_name: z.string().min(1) }),
  z.strictObject({ action: z.literal('remove_tag'), tag_name: z.string().min(1) }),
  z.strictObject({ action: z.literal('set_field_value'), field_name: z.string().min(1), value: z.unknown() }),
  z.strictObject({ action: z.literal('unset_field_value'), field_name: z.string().min(1) }),
]);
export type V2Action = z.infer<typeof Action>;

const QuickReply = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('node'), caption, target: z.string().min(1) }),
  z.looseObject({ type: z.literal('flow'), caption, target: z.string().min(1) }),
  z.looseObject({ type: z.literal('dynamic_block_callback'), caption, ...callback }),
]);

/** Limits from the doc: max 10 messages, 5 actions, 11 quick replies; callback URLs must be HTTPS. */
export const V2Content = z.strictObject({
  version: z.literal('v2'),
  content: z.looseObject({
    type: z.enum(['instagram', 'whatsapp', 'telegram']).optional(),
    messages: z.array(Message).max(10),
    actions: z.array(Action).max(5).optional(),
    quick_replies: z.array(QuickReply).max(11).optional(),
    external_message_callback: z
      .looseObject({ ...callback, url: httpsUrl, timeout: z.number().positive().max(86_400).optional() })
      .optional(),
  }),
});
export type V2ContentData = z.infer<typeof V2Content>;
