/**
 * JSON from outside, parsed so that nothing after it can trip on it: nesting is bounded before
 * parsing (a 40 KB body of 20,000 nested arrays once overflowed the stack in code that walks
 * values recursively), and every string — keys included — must be well-formed Unicode (a lone
 * surrogate such as "\ud800" once reached encodeURIComponent and threw). Either is a 400 that
 * names the problem; nothing is staged.
 */
export const MAX_JSON_DEPTH = 64;

export type UntrustedJson = { ok: true; value: unknown } | { ok: false; error: string };

/** Deepest nesting of objects and arrays in `text`, scanning iteratively (strings skipped). */
function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91 /* { [ */) {
      if (++depth > limit) return depth;
    } else if (ch === 125 || ch === 93) depth--;
  }
  return depth;
}

/** The path of the first string (value or key) that is not well-formed Unicode, or null. Iterative. */
function firstMalformedString(value: unknown): string | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: '(body)' }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (!v.isWellFormed()) return path;
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]` }));
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        if (!k.isWellFormed()) return `${path} (a key)`;
        stack.push({ value: item, path: path === '(body)' ? k : `${path}.${k}` });
      }
    }
  }
  return null;
}

export function parseUntrustedJson(text: string): UntrustedJson {
  if (nestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    return { ok: false, error: `body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `body is not valid JSON (${err instanceof Error ? err.message : 'parse error'})` };
  }
  const malformed = firstMalformedString(value);
  if (malformed) return { ok: false, error: `${malformed}: not well-formed Unicode (a lone surrogate)` };
  return { ok: true, value };
}
