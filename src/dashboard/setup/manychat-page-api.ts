import { z } from 'zod';

/**
 * What a ManyChat page has, read with the tenant's own API key: its flows, tags and custom
 * fields (ManyChat's page API: `GET /fb/page/getFlows`, `/fb/page/getTags`,
 * `/fb/page/getCustomFields`, all `{ status: "success", data }`). The dashboard's "Import from
 * ManyChat" offers them to pick from, and "Check" calls it to say whether the key works. Only
 * reads: nothing here changes the page.
 */
export const MANYCHAT_KEY_PATTERN = /^\d{1,20}:[\x21-\x7e]{1,400}$/;

const FlowsReply = z.object({
  status: z.literal('success'),
  data: z.object({ flows: z.array(z.object({ ns: z.string(), name: z.string().catch('') })) }),
});
const TagsReply = z.object({
  status: z.literal('success'),
  data: z.array(z.object({ id: z.number(), name: z.string() })),
});
const FieldsReply = z.object({
  status: z.literal('success'),
  data: z.array(z.object({ id: z.number(), name: z.string(), type: z.string(), description: z.string().nullish() })),
});

export interface PageCatalogue {
  flows: { ns: string; name: string }[];
  tags: { name: string }[];
  fields: { name: string; type: string; description: string }[];
}

export type PageRead = { ok: true; catalogue: PageCatalogue } | { ok: false; problem: string };

/** A key's shape, before anything is sent: `<page id>:<secret>` as ManyChat → Settings → API shows it. */
export function manychatKeyProblem(key: string): string | null {
  if (!key) return 'No ManyChat API key is set: paste it under Secrets (ManyChat → Settings → API).';
  return MANYCHAT_KEY_PATTERN.test(key)
    ? null
    : 'This is not a ManyChat API key: it looks like "<page id>:<secret>" (digits, a colon, then the secret), as ManyChat → Settings → API shows it.';
}

async function getJson(
  fetcher: typeof fetch,
  baseUrl: string,
  key: string,
  path: string,
): Promise<{ ok: true; json: unknown } | { ok: false; problem: string }> {
  let res: Response;
  try {
    res = await fetcher(`${baseUrl.replace(/\/$/, '')}${path}`, {
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      signal: AbortSignal.timeout(8000),
    });
  } catch {
    return { ok: false, problem: 'ManyChat did not answer (network error or timeout). Try again in a minute.' };
  }
  if (res.status === 401 || res.status === 403)
    return {
      ok: false,
      problem: 'ManyChat refused the API key (it is wrong, was revoked, or the page is not on the Pro plan).',
    };
  if (res.status === 429)
    return { ok: false, problem: 'ManyChat is rate-limiting this key right now; try again in a minute.' };
  if (!res.ok) return { ok: false, problem: `ManyChat answered ${res.status}; try again later.` };
  try {
    return { ok: true, json: await res.json() };
  } catch {
    return { ok: false, problem: 'ManyChat answered with something that is not JSON.' };
  }
}

export async function readPageCatalogue(fetcher: typeof fetch, baseUrl: string, key: string): Promise<PageRead> {
  const shape = manychatKeyProblem(key);
  if (shape) return { ok: false, problem: shape };
  const [flows, tags, fields] = await Promise.all([
    getJson(fetcher, baseUrl, key, '/fb/page/getFlows'),
    getJson(fetcher, baseUrl, key, '/fb/page/getTags'),
    getJson(fetcher, baseUrl, key, '/fb/page/getCustomFields'),
  ]);
  for (const r of [flows, tags, fields]) if (!r.ok) return r;
  const f = FlowsReply.safeParse((flows as { json: unknown }).json);
  const t = TagsReply.safeParse((tags as { json: unknown }).json);
  const c = FieldsReply.safeParse((fields as { json: unknown }).json);
  if (!f.success || !t.success || !c.success)
    return { ok: false, problem: 'ManyChat answered in a form this dashboard does not know.' };
  return {
    ok: true,
    catalogue: {
      flows: f.data.data.flows.map((x) => ({ ns: x.ns, name: x.name || x.ns })),
      tags: t.data.data.map((x) => ({ name: x.name })),
      fields: c.data.data.map((x) => ({ name: x.name, type: x.type, description: x.description ?? '' })),
    },
  };
}

/** A flow's title as a config name: lower-case letters, digits and _ (what the config's names allow). */
export function configName(title: string, taken: ReadonlySet<string>): string {
  let base = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  if (!/^[a-z]/.test(base)) base = `flow_${base}`.replace(/_+$/, '');
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  return name;
}

/** ManyChat's field types → the config's; null for one the config cannot hold (datetime: the config has no time of day). */
export function configFieldType(type: string): 'text' | 'number' | 'boolean' | 'date' | null {
  if (type === 'text' || type === 'number' || type === 'boolean' || type === 'date') return type;
  return null;
}
