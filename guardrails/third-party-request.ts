import { normalizeText } from './text-normalize.js';

/**
 * Signs that a contact's message asks the agent to act for, or on, somebody else: another
 * subscriber by id or handle, "on behalf of", "his account". The tools can only act on the
 * contact who wrote, so an obedient model would apply the action to the writer; either way the
 * request is not the writer's own, and with a staged write the turn goes to a human.
 *
 * Deliberately not flagged: "the brochure for my wife" and similar. The flow still goes to the
 * writer, who asked for it; flagging family words would escalate ordinary turns. Limits: names
 * without an id ("tag Anna as VIP") are not recognised as third parties; the support rule in
 * prompt-injection.ts still requires the tag to be in the writer's own words.
 */
const PATTERNS: readonly { name: string; re: RegExp }[] = [
  { name: 'on behalf of', re: /\bon\s+(?:\w+\s+)?behalf\b|\bin (?:his|her|their) name\b/ },
  {
    name: 'another subscriber',
    re: /\b(?:another|different|second|a different)\s+(?:contact|user|subscriber|customer|client|account|member|profile)s?\b/,
  },
  {
    name: "someone else's account",
    re: /\b(?:his|her|their|someone else's|somebody else's)\s+(?:account|profile|tags?|subscription|fields?|contact)\b/,
  },
  { name: 'a subscriber named by handle', re: /(?:^|\s)@[a-z0-9_.]{3,}/ },
  {
    name: 'a subscriber named by role',
    re: /\b(?:to|for|on)\s+(?:the\s+)?(?:user|contact|subscriber|customer|client|member)\s+(?:named|called|with (?:the )?id|id|#)\s*[a-z0-9]/,
  },
];

/** `contact 48213377`, `user id: 99887766`, `subscriber #12345`, `her subscriber id is 77881234` — unless the writer says "my". */
const ID_REFERENCE =
  /(\b\w+\s+)?\b(?:contact|user|subscriber|customer|client|account|member|profile|psid)\s*(?:id|number|no\.?|#)?\s*(?:(?:is|was)\s+)?[:#=]?\s*\d{5,}\b/g;

export function thirdPartySigns(text: string | undefined): string[] {
  if (!text) return [];
  const normalized = normalizeText(text);
  const hits = PATTERNS.filter((p) => p.re.test(normalized)).map((p) => p.name);
  for (const m of normalized.matchAll(ID_REFERENCE)) {
    const before = (m[1] ?? '').trim();
    if (before !== 'my' && before !== 'our') {
      hits.push('another subscriber by id');
      break;
    }
  }
  return hits;
}
