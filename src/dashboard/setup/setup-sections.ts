/** The parts of the setup, each a page of its own and saved on its own (after the diff review). */
export const SETUP_SECTIONS = [
  {
    id: 'persona',
    title: 'Persona',
    summary: 'What the agent is told it is, its language, its fallback and holding messages, and its deadline.',
  },
  {
    id: 'catalogue',
    title: 'Catalogue',
    summary:
      'The flows, prepared messages, tags, custom fields and FAQ the agent may use (or import them from ManyChat).',
  },
  {
    id: 'tools',
    title: 'Tools',
    summary:
      "What the agent can do, and what each action waits for: nothing, the contact's confirmation, or your approval.",
  },
  {
    id: 'guardrails',
    title: 'Guardrails',
    summary:
      'The checks every reply passes before anything is performed: confidence, deny-list, card numbers, and more.',
  },
  {
    id: 'handoff',
    title: 'Handoff',
    summary: 'What happens when a person should take over: the tag, the reply, and how long the agent stays quiet.',
  },
  {
    id: 'channels',
    title: 'Channels',
    summary: 'Connect ManyChat: your webhook URL, the request template, and your webhook secret.',
  },
  {
    id: 'secrets',
    title: 'Secrets',
    summary: 'Your ManyChat API key and Messenger secrets (write-only), and a check that the key works.',
  },
] as const;

export type SetupSection = (typeof SETUP_SECTIONS)[number]['id'];
export type ConfigSection = Exclude<SetupSection, 'channels' | 'secrets'>;
export const CONFIG_SECTIONS: readonly ConfigSection[] = ['persona', 'catalogue', 'tools', 'guardrails', 'handoff'];

export function isConfigSection(v: unknown): v is ConfigSection {
  return typeof v === 'string' && (CONFIG_SECTIONS as readonly string[]).includes(v);
}
