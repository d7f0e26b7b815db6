/** One line of a contact's conversation as the agent keeps it (Redis list per contact). */
export interface HistoryEntry {
  role: 'contact' | 'agent';
  text: string;
  at: string;
}
