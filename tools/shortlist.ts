import { resourceWords } from '../core/actions/resource-words.js';
import { findActionKind } from '../core/actions/index.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { toolScope } from '../core/tenant/resource-gates.js';
import { compareCodeUnits } from '../core/tenant/tool-order.js';
import { significantWords } from './builtins/search-faq.js';
import { cheaperMenuThreshold } from './menu-cost.js';
import { perConfig } from './schema-cache.js';

/**
 * The tool shortlist (issue 21): for a tenant whose tool menu is large, the tools and, within a
 * staging tool, the resources (flows, prepared messages, tags, fields) the contact's words make relevant. Lexical and
 * deterministic on purpose: no extra model call, the same words and config give the same list, and
 * every drop has a reason a person can read. Off (everything offered) while the menu's estimated
 * size is within the tenant's `shortlist.maxToolTokens`; a tenant that sets none gets the size
 * above which the shortlist costs less than the full menu (tools/menu-cost.ts).
 */

/** Prior turns whose words count besides the new message. */
export const HISTORY_WINDOW = 4;
const REPLY = 'reply';

export interface Shortlist {
  /** Estimated prompt tokens of the full tool menu (characters / 4 of what the model reads about the tools). */
  fullTokens: number;
  /** The same estimate of what this turn keeps (all of it when the shortlist is off): tools/menu-cost.ts's kept share. */
  keptTokens: number;
  maxToolTokens: number;
  /** False: the menu fits, nothing was dropped. */
  active: boolean;
  /** Tools kept, by name (reply always). */
  tools: string[];
  /** Per kept staging tool, the resources it keeps when narrowed (absent: its whole scope). */
  resources: Record<string, string[]>;
  /** What was dropped and why, one line each, sorted. */
  dropped: string[];
}

interface Candidate {
  name: string;
  words: Set<string>;
  pinned: boolean;
  /** Resources in the tool's scope, each with its words and estimated tokens. */
  resources: { id: string; words: Set<string>; tokens: number }[];
  /** Estimated tokens of the tool's own text (name, description, guidance). */
  ownTokens: number;
}

const tokensOf = (chars: number) => chars / 4;

function resourceText(config: TenantConfig, resource: string): string {
  const colon = resource.indexOf(':');
  const type = resource.slice(0, colon);
  const name = resource.slice(colon + 1);
  const spaced = name.replace(/_/g, ' ');
  if (type !== 'flow' && type !== 'content' && type !== 'tag' && type !== 'field') return spaced;
  // The resource's words, as the action-support check reads them too (core/actions/resource-words.ts).
  const words = resourceWords(config, type, name);
  if (!words) return spaced;
  if (type === 'tag') return `${spaced} ${words.description}`;
  if (type === 'field') return `${spaced} ${words.label ?? ''} ${words.description} ${words.choices.join(' ')}`;
  return `${spaced} ${words.description} ${words.keywords.join(' ')}`;
}

/** What the shortlist scores, per config object (computed once; the config does not change under it). */
function candidates(config: TenantConfig): { list: Candidate[]; fullTokens: number; defaultMaxTokens: number } {
  return perConfig(config, 'shortlist:candidates', () => {
    const list = config.tools
      .filter((t) => config.manifest[t.name])
      .map((instance): Candidate => {
        const declaration = config.manifest[instance.name]!;
        const scope = findActionKind(instance.kind)?.tool ? toolScope(config, instance.name) : [];
        const resources = scope.map((id) => {
          const text = resourceText(config, id);
          return { id, words: significantWords(text), tokens: tokensOf(text.length + id.length) };
        });
        // The FAQ tool is worth offering when a question is near one of the entries.
        const faqText = instance.kind === 'search_faq' ? config.faq.map((e) => e.question).join(' ') : '';
        const ownText = `${instance.name.replace(/_/g, ' ')} ${instance.description} ${declaration.guidance ?? ''}`;
        return {
          name: instance.name,
          words: significantWords(`${ownText} ${faqText}`),
          pinned: declaration.pinned === true,
          resources,
          ownTokens: tokensOf(ownText.length),
        };
      });
    const whole = (c: Candidate) => c.ownTokens + c.resources.reduce((a, r) => a + r.tokens, 0);
    const defaultMaxTokens = cheaperMenuThreshold({
      personaTokens: tokensOf(config.persona.length),
      pinnedTokens: list.filter((c) => c.pinned).reduce((a, c) => a + whole(c), 0),
    });
    return { list, fullTokens: Math.ceil(list.reduce((a, c) => a + whole(c), 0)), defaultMaxTokens };
  });
}

function overlap(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n;
}

/**
 * Which tools and resources to offer this turn. `texts`: the contact's message and recent history.
 * Kept: `reply`; pinned tools whole; a tool whose own words or any of its resources' words meet the
 * contact's. Within a kept staging tool, the resources that match; when none does (the tool matched
 * on its own words, or is pinned), its whole scope.
 */
export function shortlist(config: TenantConfig, texts: readonly string[]): Shortlist {
  const { list, fullTokens, defaultMaxTokens } = candidates(config);
  const maxToolTokens = config.shortlist?.maxToolTokens ?? defaultMaxTokens;
  const all = [...list.map((c) => c.name), REPLY].sort(compareCodeUnits);
  if (fullTokens <= maxToolTokens)
    return { fullTokens, keptTokens: fullTokens, maxToolTokens, active: false, tools: all, resources: {}, dropped: [] };
  const said = significantWords(texts.join(' '));
  const tools: string[] = [REPLY];
  const resources: Record<string, string[]> = {};
  const dropped: string[] = [];
  let kept = 0;
  for (const c of list) {
    const matched = c.resources.filter((r) => overlap(r.words, said) > 0).map((r) => r.id);
    const ownMatch = overlap(c.words, said) > 0;
    if (!c.pinned && !ownMatch && matched.length === 0) {
      dropped.push(`tool ${c.name}: no word of the message or recent history matches it`);
      continue;
    }
    tools.push(c.name);
    const narrowed = matched.length > 0 && matched.length < c.resources.length;
    kept += c.ownTokens + c.resources.reduce((a, r) => a + (!narrowed || matched.includes(r.id) ? r.tokens : 0), 0);
    if (narrowed) {
      resources[c.name] = matched;
      for (const r of c.resources)
        if (!matched.includes(r.id))
          dropped.push(`${r.id} (tool ${c.name}): no word of the message or recent history matches it`);
    }
  }
  return {
    fullTokens,
    keptTokens: Math.ceil(kept),
    maxToolTokens,
    active: true,
    tools: tools.sort(compareCodeUnits),
    resources,
    dropped: dropped.sort(compareCodeUnits),
  };
}
