import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../storage/keys.js';
import { isTenantId } from './tenant-id.js';
import { TenantConfigSchema } from './tenant-config.js';

describe('tenant ids', () => {
  it('are lower-case letters, digits and hyphens, 1–63, starting with a letter or digit', () => {
    for (const ok of ['demo', 'a', '0studio', 'yoga-studio-7', 'x'.repeat(63)]) expect(isTenantId(ok)).toBe(true);
    for (const bad of ['', '-demo', 'Demo', 'demo:x', 'de mo', 'demo_x', 'x'.repeat(64), 'demo.x', 'démo'])
      expect(isTenantId(bad)).toBe(false);
  });
  it('never reach a key unchecked: a ":" cannot make one tenant\'s keys another\'s', () => {
    expect(() => tenantKeys('a:b')).toThrow();
    expect(tenantKeys('a').config).toBe('t:a:config');
  });
  it('are strings: a missing id is not the tenant "undefined" or "null"', () => {
    for (const missing of [undefined, null, 0, ['demo']]) expect(isTenantId(missing)).toBe(false);
    // @ts-expect-error: what a JavaScript caller or an unchecked param could pass
    expect(() => tenantKeys(undefined)).toThrow();
  });
  it('are checked where a config is saved', () => {
    const parsed = TenantConfigSchema.safeParse({
      version: 1,
      tenantId: 'demo:x',
      displayName: 'd',
      persona: 'p',
      fallbackReply: 'f',
      handoff: { reply: 'h' },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['tenantId']);
  });
});
