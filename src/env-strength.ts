/**
 * Deployed mode refuses secrets a person would not choose for production: the example file's
 * placeholders, the local stack's fixed keys, and anything short or with too few distinct
 * characters to have come from a random generator. Only the secrets this Worker owns are judged
 * (the Upstash and QStash tokens are issued by Upstash). Problems name the variable, never its value.
 */

/** At least this long in deployed mode (the local stack may use shorter ones). */
export const DEPLOYED_SECRET_MIN_CHARS = 32;
/** A random 32-character secret has about 25 distinct characters; a repeated pattern has few. */
const MIN_DISTINCT_CHARS = 10;
/** Words only placeholders and the local stack's fixed secrets contain. */
const PLACEHOLDER = /change[-_ ]?me|example|placeholder|your[-_]|local[-_]stack|^dev[-_]|^test[-_]|secret[-_]?here/i;

/** The problems with one bearer-like secret, or none (never quoting it). */
export function weakSecretProblems(value: string | undefined): string[] {
  if (value === undefined) return [];
  if (PLACEHOLDER.test(value))
    return [`looks like a placeholder or the local stack's value; generate one (openssl rand -base64 32)`];
  if (value.length < DEPLOYED_SECRET_MIN_CHARS)
    return [`must be at least ${DEPLOYED_SECRET_MIN_CHARS} characters in a deployed Worker`];
  if (new Set(value).size < MIN_DISTINCT_CHARS) return [`has too few distinct characters to be random`];
  return [];
}

/**
 * The encryption key ring (`<id>:<base64 32 bytes>,…`): a key whose bytes repeat (the local
 * stack's is 32 times the same byte) is refused. Format errors are the key ring parser's to report.
 */
export function weakKeyRingProblems(value: string | undefined): string[] {
  if (value === undefined) return [];
  const problems: string[] = [];
  for (const [index, part] of value.split(',').entries()) {
    const base64 = part.slice(part.indexOf(':') + 1).trim();
    let bytes: string;
    try {
      bytes = atob(base64);
    } catch {
      continue;
    }
    if (new Set(bytes).size < 16)
      problems.push(`key ${index + 1} is not random (its bytes repeat); generate one (openssl rand -base64 32)`);
  }
  return problems;
}
