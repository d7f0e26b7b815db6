/**
 * The save check of a Messenger page access token (issue 31): before a token is sealed, Meta is
 * asked whose token it is (`GET <graph>/me?fields=id,name`, the token as a Bearer header, never
 * in the URL or a log). The answer must be the page the token is saved for; Meta's refusal (code
 * 190: expired, revoked, cut short) and a token of another page are said in plain words. When the
 * Graph API cannot be reached (no network, a timeout) only the token's shape is checked, and the
 * person is told so — a save must not wait on Meta, and a well-formed token is the best we know.
 */
export type PageTokenCheck =
  | { ok: true; checked: 'meta'; pageName?: string }
  | { ok: true; checked: 'format'; note: string }
  | { ok: false; problem: string };

/** Meta's tokens are opaque letters and digits (`EAA…`, ~200 characters); whitespace or quotes mean a bad copy. */
const TOKEN_SHAPE = /^[A-Za-z0-9_\-.|]+$/;
export const MIN_PAGE_TOKEN = 20;
export const MAX_PAGE_TOKEN = 1024;

/** The token's shape alone: null, or why it cannot be a page access token. */
export function pageTokenFormatProblem(token: string): string | null {
  if (/\s/.test(token)) return 'The token has spaces or line breaks in it: copy it again as one piece.';
  if (token.length < MIN_PAGE_TOKEN)
    return `The token is too short (${token.length} characters) to be a page access token: copy it again, whole.`;
  if (token.length > MAX_PAGE_TOKEN)
    return `The token is longer than ${MAX_PAGE_TOKEN} characters: that is not a page access token.`;
  if (!TOKEN_SHAPE.test(token))
    return 'The token has characters a page access token never has (quotes, brackets, …): copy only the token.';
  return null;
}

export async function checkPageToken(
  deps: { fetch: typeof fetch; graphUrl: string; timeoutMs?: number },
  pageId: string,
  token: string,
): Promise<PageTokenCheck> {
  const shape = pageTokenFormatProblem(token);
  if (shape) return { ok: false, problem: shape };
  let res: Response;
  try {
    res = await deps.fetch(`${deps.graphUrl.replace(/\/$/, '')}/me?fields=id,name`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(deps.timeoutMs ?? 5000),
    });
  } catch {
    return {
      ok: true,
      checked: 'format',
      note: `Meta could not be reached, so the token of page ${pageId} was checked only for its format.`,
    };
  }
  const body = (await res.json().catch(() => null)) as {
    id?: unknown;
    name?: unknown;
    error?: { code?: unknown; message?: unknown };
  } | null;
  if (res.ok && typeof body?.id === 'string') {
    if (body.id !== pageId)
      return {
        ok: false,
        problem: `This token belongs to page ${body.id}${typeof body.name === 'string' ? ` (${body.name.slice(0, 80)})` : ''}, not page ${pageId}: copy the token of page ${pageId}.`,
      };
    return {
      ok: true,
      checked: 'meta',
      ...(typeof body.name === 'string' ? { pageName: body.name.slice(0, 100) } : {}),
    };
  }
  if (body?.error?.code === 190)
    return {
      ok: false,
      problem: `Meta does not accept this token (expired, revoked or not copied whole): generate a new page access token for page ${pageId} in your Meta app's Messenger settings.`,
    };
  if (res.status >= 500 || res.status === 429)
    return {
      ok: true,
      checked: 'format',
      note: `Meta did not answer the check (${res.status}), so the token of page ${pageId} was checked only for its format.`,
    };
  const said = typeof body?.error?.message === 'string' ? `: ${body.error.message.slice(0, 200)}` : '';
  return { ok: false, problem: `Meta refused the token of page ${pageId} (${res.status})${said}.` };
}
