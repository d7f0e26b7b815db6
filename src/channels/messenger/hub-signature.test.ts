import { describe, expect, it } from 'vitest';
import { parseHubSignature, signHubBody, verifyHubSignature } from './hub-signature.js';

const enc = (s: string) => new TextEncoder().encode(s);

describe('X-Hub-Signature-256', () => {
  it('signs as Meta does (lowercase hex HMAC-SHA256 of the bytes) and verifies exactly those bytes', async () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    expect(await signHubBody('what do ya want for nothing?', 'Jefe')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    const header = await signHubBody('{"a": "\\u00e9"}', 'secret');
    const parsed = parseHubSignature(header);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(await verifyHubSignature(enc('{"a": "\\u00e9"}'), parsed.mac, 'secret')).toBe(true);
    expect(await verifyHubSignature(enc('{"a":"é"}'), parsed.mac, 'secret')).toBe(false);
    expect(await verifyHubSignature(enc('{"a": "\\u00e9"}'), parsed.mac, 'secret2')).toBe(false);
  });

  it('accepts upper-case hex; refuses a missing header, sha1=, a short or non-hex MAC', () => {
    expect(parseHubSignature(`sha256=${'AB'.repeat(32)}`).ok).toBe(true);
    expect(parseHubSignature(undefined)).toEqual({ ok: false, problem: 'missing x-hub-signature-256 header' });
    for (const bad of [
      `sha1=${'ab'.repeat(20)}`,
      `sha256=${'ab'.repeat(31)}`,
      `sha256=${'zz'.repeat(32)}`,
      'ab'.repeat(32),
    ])
      expect(parseHubSignature(bad).ok).toBe(false);
  });
});
