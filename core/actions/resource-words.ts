/**
 * The words that describe one of a tenant's resources — a flow, a prepared message, a tag, a
 * custom field — written once, here: what the tool shortlist scores a turn's words against
 * (tools/shortlist.ts) and what the action-support check looks for in the contact's words
 * (guardrails/action-support.ts). A new resource kind says its words here, and both read them.
 */
export type ResourceType = 'flow' | 'content' | 'tag' | 'field';

/** How a person reads a resource of each type ("the flow", "the message"). */
export const RESOURCE_NOUN: Record<ResourceType, string> = {
  flow: 'flow',
  content: 'message',
  tag: 'tag',
  field: 'field',
};

/** A kind's resource (`flow:brochure`) as its type and name; null for none, or a type with no words. */
export function resourceRef(resource: string | null): { type: ResourceType; name: string } | null {
  const colon = resource?.indexOf(':') ?? -1;
  const type = resource?.slice(0, colon);
  if (!resource || colon < 1 || !type || !Object.hasOwn(RESOURCE_NOUN, type)) return null;
  return { type: type as ResourceType, name: resource.slice(colon + 1) };
}

export interface ResourceWords {
  /** The resource's config name (snake_case as the tenant wrote it). */
  name: string;
  description: string;
  /** Words the tenant listed as naming it (flows and messages); none for tags and fields. */
  keywords: readonly string[];
  /** A field's label and its choices (none for other resources). */
  label?: string;
  choices: readonly string[];
}

/** A structural view of the config (every TenantConfig is one): only what the words are read from. */
export interface ResourceWordsView {
  flows: readonly { name: string; description: string; keywords: readonly string[] }[];
  contents: readonly { name: string; description: string; keywords: readonly string[] }[];
  tags: readonly { name: string; description: string }[];
  fields: readonly {
    name: string;
    description: string;
    label?: string | undefined;
    choices?: readonly string[] | undefined;
  }[];
}

/** The words of one configured resource; null when the config has no such resource. */
export function resourceWords(config: ResourceWordsView, type: ResourceType, name: string): ResourceWords | null {
  switch (type) {
    case 'flow': {
      const f = config.flows.find((x) => x.name === name);
      return f ? { name: f.name, description: f.description, keywords: f.keywords, choices: [] } : null;
    }
    case 'content': {
      const c = config.contents.find((x) => x.name === name);
      return c ? { name: c.name, description: c.description, keywords: c.keywords, choices: [] } : null;
    }
    case 'tag': {
      const t = config.tags.find((x) => x.name === name);
      return t ? { name: t.name, description: t.description, keywords: [], choices: [] } : null;
    }
    case 'field': {
      const f = config.fields.find((x) => x.name === name);
      return f
        ? {
            name: f.name,
            description: f.description,
            keywords: [],
            ...(f.label !== undefined ? { label: f.label } : {}),
            choices: f.choices ?? [],
          }
        : null;
    }
  }
}
