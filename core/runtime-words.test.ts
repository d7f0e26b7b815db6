import { describe, expect, it } from 'vitest';
import {
  CATALOGUE,
  localeOf,
  placeholderProblem,
  PLACEHOLDERS,
  RUNTIME_LOCALES,
  runtimeWords,
  WORD_KEYS,
  WordOverridesSchema,
  type WordKey,
} from './runtime-words.js';
import { describeAction, tenantWords } from './tenant/tenant-words.js';
import { TenantConfigSchema } from './tenant/tenant-config.js';
import { demoTenantConfig } from '../dev/demo-tenant.js';

describe('the runtime words catalogue', () => {
  it('ships the eight languages', () => {
    expect([...RUNTIME_LOCALES].sort()).toEqual(['de', 'en', 'es', 'fr', 'id', 'it', 'pt', 'tr']);
  });
  it.each(RUNTIME_LOCALES)('%s: every key exists, is not empty, and keeps its required placeholders', (locale) => {
    const words = CATALOGUE[locale] as Partial<Record<WordKey, string>>;
    expect(Object.keys(words).sort()).toEqual([...WORD_KEYS].sort());
    for (const key of WORD_KEYS) {
      expect(words[key], `${locale}.${key}`).toBeTruthy();
      expect(placeholderProblem(key, words[key]!), `${locale}.${key}`).toBeNull();
    }
  });
  it('every language but English says each status in its own words (no English left behind)', () => {
    for (const locale of RUNTIME_LOCALES.filter((l) => l !== 'en')) {
      for (const key of [
        'confirmPrompt',
        'approvalWait',
        'confirmed',
        'declined',
        'approvalRejected',
        'approvalExpired',
        'handoffReply',
        'rateLimited',
        'suspended',
        'yes',
      ] as const) {
        expect(CATALOGUE[locale][key], `${locale}.${key}`).not.toBe(CATALOGUE.en[key]);
      }
    }
  });
  it('the Yes and No captions of each language are the words its confirm prompt asks for', () => {
    for (const locale of RUNTIME_LOCALES) {
      const { confirmPrompt, yes, no } = CATALOGUE[locale];
      expect(confirmPrompt, locale).toContain(yes);
      expect(confirmPrompt, locale).toContain(no);
    }
  });
});

describe("localeOf: the channel's language or locale", () => {
  it.each([
    ['es_ES', 'es'],
    ['pt-BR', 'pt'],
    ['de_DE', 'de'],
    ['fr_CA', 'fr'],
    ['it_IT', 'it'],
    ['tr_TR', 'tr'],
    ['id_ID', 'id'],
    ['in_ID', 'id'],
    ['en_US', 'en'],
    ['Spanish', 'es'],
    ['Español', 'es'],
    ['Português', 'pt'],
    ['Deutsch', 'de'],
    ['Français', 'fr'],
    ['Türkçe', 'tr'],
    ['Bahasa Indonesia', 'id'],
    ['Italian', 'it'],
  ])('%s → %s', (given, want) => expect(localeOf(given)).toBe(want));
  it.each([['ar_AR'], ['Arabic'], [''], [undefined], ['xx'], ['e']])('%s → none', (given) =>
    expect(localeOf(given)).toBeNull(),
  );
});

describe("runtimeWords: per contact, with the tenant's overrides", () => {
  it("the contact's language wins over the tenant's locale; an unknown one falls back to the locale", () => {
    expect(runtimeWords({ locale: 'es' }, 'de_DE').say('yes')).toBe('Ja');
    expect(runtimeWords({ locale: 'es' }, 'ar_AR').say('yes')).toBe('Sí');
    expect(runtimeWords({ locale: 'es' }).locale).toBe('es');
  });
  it('an override for the language and key is used, placeholders filled; other languages keep the catalogue', () => {
    const tenant = { locale: 'es' as const, words: { es: { confirmPrompt: '¿Lo confirmas? {what}' } } };
    expect(runtimeWords(tenant).say('confirmPrompt', { what: 'x' })).toBe('¿Lo confirmas? x');
    expect(runtimeWords(tenant, 'pt').say('confirmPrompt', { what: 'x' })).toBe('Confirme com Sim ou Não: x.');
  });
  it("the tenant's own texts stand in its locale only, and an untouched English default does not", () => {
    const own = { handoffReply: 'Te atiende una persona.', suspended: CATALOGUE.en.suspended, holdingReply: '' };
    expect(runtimeWords({ locale: 'es', own }).say('handoffReply')).toBe('Te atiende una persona.');
    expect(runtimeWords({ locale: 'es', own }, 'fr').say('handoffReply')).toBe(CATALOGUE.fr.handoffReply);
    expect(runtimeWords({ locale: 'es', own }).say('suspended')).toBe(CATALOGUE.es.suspended);
    expect(runtimeWords({ locale: 'en', own }).say('suspended')).toBe(CATALOGUE.en.suspended);
    // No holding message on purpose: none in any language, unless the tenant gives one for it.
    expect(runtimeWords({ locale: 'es', own }, 'de').say('holdingReply')).toBe('');
    expect(
      runtimeWords({ locale: 'es', own, words: { de: { holdingReply: 'Moment…' } } }, 'de').say('holdingReply'),
    ).toBe('Moment…');
  });
  it('overrides are checked at save: a lost {what}, a foreign placeholder, an unknown language or key are refused', () => {
    expect(WordOverridesSchema.safeParse({ es: { confirmPrompt: '¿Lo confirmas?' } }).success).toBe(false);
    expect(WordOverridesSchema.safeParse({ es: { declined: 'Vale {what}' } }).success).toBe(false);
    expect(WordOverridesSchema.safeParse({ ar: { yes: 'نعم' } }).success).toBe(false);
    expect(WordOverridesSchema.safeParse({ es: { hello: 'x' } }).success).toBe(false);
    expect(
      WordOverridesSchema.safeParse({ es: { actionSetField: '{label} = {value}' }, de: { yes: 'Jawohl' } }).success,
    ).toBe(true);
    expect(PLACEHOLDERS.confirmed.required).toEqual(['{what}']);
  });
  it('a tenant config carries overrides and all eight locales', () => {
    for (const locale of RUNTIME_LOCALES)
      expect(TenantConfigSchema.safeParse({ ...demoTenantConfig(), locale }).success, locale).toBe(true);
    const bad = TenantConfigSchema.safeParse({
      ...demoTenantConfig(),
      words: { es: { confirmPrompt: 'sin marcador' } },
    });
    expect(bad.success).toBe(false);
  });
});

describe('tenantWords and describeAction', () => {
  const config = TenantConfigSchema.parse({
    ...demoTenantConfig(),
    locale: 'es',
    handoff: { tag: 'human_handoff', reply: 'Una persona te escribe pronto.' },
  });
  it("the config's own texts are its locale's words; the rate limit and suspension defaults become the language's", () => {
    expect(tenantWords(config).say('handoffReply')).toBe('Una persona te escribe pronto.');
    expect(tenantWords(config).say('rateLimited')).toBe(CATALOGUE.es.rateLimited);
    expect(tenantWords(config, 'it_IT').say('handoffReply')).toBe(CATALOGUE.it.handoffReply);
  });
  it("actions in the contact's language; English keeps the kind's summary", () => {
    const field = {
      kind: 'set_field',
      args: { field: 'preferred_class', value: 'pilates' },
      summary: 'set your preferred class to "pilates"',
    };
    expect(describeAction(tenantWords(config), field, config.fields)).toBe('poner your preferred class en «pilates»');
    expect(describeAction(runtimeWords({ locale: 'en' }), field, config.fields)).toBe(field.summary);
    expect(
      describeAction(tenantWords(config, 'de'), {
        kind: 'send_flow',
        args: { flowName: 'studio_tour', flowNs: 'n' },
        summary: 's',
      }),
    ).toBe('dir „studio tour“ schicken');
    expect(
      describeAction(tenantWords(config, 'tr'), {
        kind: 'live_chat',
        args: {},
        summary: 'assign the conversation to live chat',
      }),
    ).toBe('assign the conversation to live chat');
  });
});
