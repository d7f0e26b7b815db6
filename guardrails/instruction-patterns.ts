import { normalizeKeepCase, normalizeText, unConfuse, unLeet } from './text-normalize.js';

/**
 * Patterns of text that tries to instruct the agent, written from public attack catalogues
 * (AgentDojo's `ignore_previous`, `system_message`, `injecagent`, `important_instructions`,
 * `tool_knowledge`; OWASP LLM01) and kept narrow on purpose: the guardrails act on them only in
 * combination with a staged write, and a pattern that fires on an ordinary customer sentence
 * ("from now on I prefer pilates") would escalate honest turns.
 *
 * Two sets:
 * - `INJECTION_MARKERS` are never part of an honest request, wherever they appear: overrides
 *   ("ignore previous instructions"), fake role headers and delimiters, fake tool results, mode
 *   switches, notes addressed to the AI.
 * - `AGENT_DIRECTIVES` tell an agent to act on a contact ("tag the customer", "set the field",
 *   "call tool X"). A contact may say such things about themselves, so these count only in text
 *   that is not the contact's own request: read-tool results, contact fields and the contact name.
 *
 * Matching runs on normalised text (NFKC, no zero-width characters, lower case) and again with
 * common leetspeak undone, look-alike letters folded and accents folded. Markers exist for en, es,
 * pt, de, fr, it, tr and id (overrides, role reassignment, notes to the AI, "don't tell the
 * customer"); the AGENT_DIRECTIVES are English only. Encoded text (base64, hex, escapes) is decoded
 * by the caller (request-provenance.ts `decodedParts`). Limits: paraphrases outside these shapes,
 * other languages, ROT13 or spelled-out letters and instructions split across messages are not
 * recognised; the provenance rules in prompt-injection.ts are the backstop for those.
 */
export interface NamedPattern {
  name: string;
  re: RegExp;
  /** Run on the text with its case kept (a shouted "SYSTEM:" mid-sentence, not "booking system:"). */
  caseSensitive?: boolean;
}

const AI = String.raw`(?:ai|a\.i\.|assistant|bot|chat ?bot|model|agent|llm|gpt|chatgpt|language model|virtual assistant)`;

export const INJECTION_MARKERS: readonly NamedPattern[] = [
  {
    name: 'override of earlier instructions',
    re: /\b(?:ignore|disregard|forget|skip|bypass|override|overwrite|abandon)\b[^.!?\n]{0,40}?\b(?:previous|prior|preceding|above|earlier|former|original|existing|all|any|your|the|system|these|those)\b[^.!?\n]{0,30}?\b(?:instructions?|rules|prompts?|directives?|guidelines|guardrails?|constraints|programming|polic(?:y|ies)|safety)\b/,
  },
  {
    name: 'override (es/fr/de/pt/it)',
    re: /\b(?:ignora|ignorez|ignore[sz]?|olvida|oublie[sz]?|vergiss|ignoriere)\b[^.!?\n]{0,40}\b(?:instrucciones|instructions|anweisungen|instruções|instrucoes|istruzioni|reglas|règles|regeln|regras|consignes)\b/,
  },
  // Other languages' markers, read on the accent-folded text (see `matchPatterns`): written without accents.
  {
    name: 'override (tr/id)',
    re: /\b(?:onceki|tum|butun|yukaridaki|sistem)?\s*(?:talimat\w*|kural\w*|yonerge\w*)\s+(?:\w+\s+){0,2}(?:yok say\w*|unut\w*|gormezden gel\w*|dikkate alma\w*|umursama\w*)|\b(?:abaikan|lupakan|acuhkan|jangan ikuti)\b[^.!?\n]{0,40}\b(?:instruksi|perintah|aturan|petunjuk|arahan)\b/,
  },
  {
    name: 'override, more verbs (es/pt/de/fr/it)',
    re: /\b(?:omite|descarta|desobedece|esqueca|esquece|desconsidere|desconsidera|missachte|uberschreibe|oubliez|oublie|ignorez|dimentica|dimenticate|trascura)\b[^.!?\n]{0,40}\b(?:instrucciones|indicaciones|instrucoes|regras|orientacoes|anweisungen|regeln|vorgaben|instructions|consignes|regles|istruzioni|regole|indicazioni)\b/,
  },
  {
    name: 'role reassignment (es/pt/de/fr/it/tr/id)',
    re: /\b(?:(?:a partir de )?ahora eres|desde ahora eres|(?:a partir de )?agora (?:voce|tu) e|du bist (?:jetzt|ab jetzt|nun)|ab (?:jetzt|sofort) bist du|(?:tu es|vous etes) (?:maintenant|desormais)|desormais,? (?:tu es|vous etes)|d'ora in poi sei|da (?:ora|adesso) sei|artik sen|bundan sonra sen|(?:mulai )?sekarang (?:kamu|anda) adalah)\s+(?:[\p{L}']+\s+){0,2}?(?:asistente|assistente|assistant|bot|ia|ki|agente|agent|modelo|modell|modele|modello|admin\w*|administra\w*|yonetici\w*|asisten|sistem|system|desarrollador|entwickler|developpeur|sviluppatore|pengembang)\b/u,
  },
  {
    name: 'note addressed to the AI (es/pt/de/fr/it/tr/id)',
    re: /\b(?:nota|note|mensaje|instrucciones|recado|mensagem|instrucoes|hinweis|nachricht|anweisung(?:en)?|message|consigne|istruzioni|messaggio|catatan|pesan|instruksi)\s+(?:para|an|fur|pour|per|untuk)\s+(?:el |la |o |a |den |die |das |l'|le |il |lo )?(?:asistente|assistente|assistenten|assistant|ia|ki|bot|modelo|modell|modele|modello|agente|agent|asisten)\b|\b(?:asistana|yapay zekaya|bota|modele) (?:not|mesaj|talimat)\b/,
  },
  {
    name: 'hide it from the contact (es/pt/de/fr/it/tr/id)',
    re: /\bno (?:se lo |le |les )?(?:digas|diga|menciones|informes|avises) (?:nada )?(?:al|a los) (?:usuario|cliente|contacto)s?\b|\bsin (?:decirle|avisar|informar)(?:le)? (?:al|a los) (?:usuario|cliente|contacto)s?\b|\bnao (?:diga|conte|avise|informe)\w* (?:nada )?(?:ao|aos|para o) (?:usuario|cliente|contato)s?\b|\bsem (?:avisar|informar|contar)\w* (?:o|os|ao) (?:usuario|cliente|contato)s?\b|\b(?:sag|sage|verrate)\w* (?:es |das )?(?:dem|den) (?:kunden|nutzer|benutzer|kontakt)\w* nicht\b|\bohne (?:den|die) (?:kunden|nutzer|benutzer|kontakt)\w* zu (?:informieren|fragen|benachrichtigen)\b|\bne (?:le |lui )?(?:dis|dites) (?:rien )?pas (?:a l'|au |aux )(?:utilisateur|client|contact)s?\b|\bsans (?:prevenir|informer|avertir) (?:l'|le |les )(?:utilisateur|client|contact)s?\b|\bnon (?:dire|dirlo|dirgli|informare|avvisare)\w* (?:nulla )?(?:al |all'|ai )(?:utente|cliente|contatto)\w*\b|\bsenza (?:avvisare|informare|dire(?:lo)? a) (?:l'|il |i )?(?:utente|cliente|contatto)\w*\b|\b(?:musteriye|kullaniciya|kisiye) (?:soyleme|bahsetme|haber verme)\w*|\b(?:jangan|tanpa) (?:beri tahu|memberi tahu|memberitahu|bilang ke) (?:pengguna|pelanggan|kontak)\b/,
  },
  {
    name: 'claimed new instructions',
    re: /\b(?:new|updated|revised|real|actual|true|hidden|secret)\s+(?:instructions?|directives?|system prompt)\s*(?::|for (?:you|the (?:ai|assistant|bot|model|agent))\b|from (?:the )?(?:admin|developer|system|operator|owner|management)\b)|\byour (?:new|real|actual|true|updated) (?:instructions|task|goal|objective|directives?)\b/,
  },
  {
    name: 'role reassignment',
    re: /\b(?:you are now|you're now|you will now act|from now on,? you|from now on,? (?:always|ignore|respond|act|obey)|pretend (?:you are|you're|to be)|roleplay as|you must obey)\b/,
  },
  {
    name: 'mode switch',
    re: /\b(?:developer|admin|administrator|god|debug|maintenance|sudo|root|unrestricted|jailbreak|dan) mode\b|\bjailbr[eo]a?k|\bdo anything now\b/,
  },
  {
    name: 'fake system/developer message',
    re: /\b(?:system|developer|admin|administrator|operator|root|assistant|tool|function)[ _-]?(?:message|prompt|instruction|override|note|command|notice|update|directive)s?\b\s*[:\]>)"]/,
  },
  {
    name: 'fake role header',
    re: /(?:^|\n|[.!?] )\s*[#>*=\[(<{|-]*\s*(?:system|developer|assistant|tool|function|admin)\s*[\]:)>}|]/,
  },
  {
    name: 'shouted role header',
    re: /\b(?:SYSTEM|DEVELOPER|ADMIN|ASSISTANT)\s*(?:MESSAGE|NOTE|OVERRIDE)?\s*:/,
    caseSensitive: true,
  },
  { name: 'fake markdown system header', re: /#{2,}\s*[([]?\s*(?:system|instruction|admin|developer)/ },
  {
    name: 'fake markup tag',
    re: /<\s*\/?\s*(?:system|sys|instructions?|information|important|admin|developer|im_start|im_end|tool_call|tool_result|tool_output|function_call|function_result|untrusted-data|assistant|user|context)\b[^>]*>/,
  },
  { name: 'chat-template token', re: /<\|[a-z_]{2,}\|>|\[\/?inst\]|<<\/?sys>>|\[\/?system\]/ },
  { name: 'TODO: prefix (AgentDojo direct)', re: /(?:^|\n)\s*todo\s*:/ },
  { name: 'IMPORTANT!!! prefix', re: /\bimportant\s*!{3,}|\b(?:attention|warning|urgent|notice)\s*!{3,}/ },
  {
    name: 'note addressed to the AI',
    re: new RegExp(
      String.raw`\b(?:note|message|instructions?|reminder|notice|directive)s? (?:to|for) (?:the |all |any |every )?${AI}s?\b`,
    ),
  },
  {
    name: 'AI told it must act',
    re: new RegExp(
      String.raw`\b${AI}s?\b[^.\n]{0,25}\b(?:must|shall|is required to|are required to|is instructed to|are instructed to|has been instructed|is authori[sz]ed to|are authori[sz]ed to)\b`,
    ),
  },
  {
    name: '"before you finish" task hijack',
    re: /\bbefore (?:you |finishing |completing |answering |replying |responding )?(?:finish|complete|answer|repl(?:y|ies)|respond|continu|proceed|do(?:ing)? (?:the|your|that|this) task)\w*\b[^\n]{0,80}\b(?:first|please do|make sure|you (?:must|should|need to)|call|use|stage|tag|send|remove|set)\b/,
  },
  {
    name: 'fake tool result',
    re: /"\s*(?:status|tool_?name|tool_?call_?id|effects|role|function_call|tool_calls)\s*"\s*:|\b(?:tool|function)[ _-]?(?:call|result|output|response)s?\s*[:=({[]|\bstaged,? not done\b|\bstaged \(not yet|\brefused: (?:flow|tag|field)\b/,
  },
  {
    name: 'conversation-delimiter escape',
    re: /\[removed tag\]|<\/untrusted|end of (?:untrusted )?(?:data|user input|context|conversation)\b|\bbegin (?:system|new) (?:prompt|instructions)\b/,
  },
  {
    name: 'claimed authority',
    re: /\b(?:i am|i'm|this is)\s+(?:the\s+|an?\s+|your\s+)?(?:admin|administrator|page admin|moderator|developer|system operator|operator|system|openai|anthropic|manychat (?:staff|support|admin))\b/,
  },
  {
    name: 'hide it from the user',
    re: /\b(?:do not|don't|never) (?:tell|inform|notify|mention (?:this |it )?to|reveal (?:this |it )?to) (?:the )?(?:user|contact|customer|human)\b|\b(?:silently|secretly|quietly|without (?:telling|informing|asking|notifying)) (?:the )?(?:user|contact|customer|human)\b/,
  },
];

/** Directives count only in imperative position: a sentence start, or after "please", "must"… */
const LEAD = String.raw`(?:^|[.!?:;,\n]\s*|\b(?:please|must|should|shall|always|now|immediately|then|also|kindly|to|and)\s+)`;

export const AGENT_DIRECTIVES: readonly NamedPattern[] = [
  {
    name: 'tag/label the contact',
    re: new RegExp(
      String.raw`${LEAD}(?:tag|untag|label|mark|flag)\s+(?:the\s+|this\s+|that\s+|every\s+|each\s+|all\s+|any\s+)?(?:contact|user|customer|subscriber|client|person|lead|visitor|sender|them|him|her)s?\b`,
    ),
  },
  {
    name: 'add/remove a tag',
    re: new RegExp(
      String.raw`${LEAD}(?:add|apply|assign|give|attach|put|remove|delete|strip|clear|drop)\s+(?:the\s+|a\s+|this\s+|that\s+)?(?:["'][^"']{1,40}["']\s+|[a-z_]{1,40}\s+)?(?:tag|label)s?\b`,
    ),
  },
  {
    name: 'send the contact something',
    re: new RegExp(
      String.raw`${LEAD}(?:send|trigger|start|fire|push|deliver)\s+(?:the\s+|this\s+|that\s+|every\s+|each\s+|all\s+)?(?:contact|user|customer|subscriber|client|them|him|her)s?\b`,
    ),
  },
  {
    name: 'send a flow',
    re: new RegExp(
      String.raw`${LEAD}(?:send|trigger|start|fire|run)\s+(?:the\s+|a\s+)?(?:["'][^"']{1,40}["']\s+|[a-z_]{1,40}\s+)?flow\b`,
    ),
  },
  {
    name: 'set a field',
    re: new RegExp(
      String.raw`${LEAD}(?:set|update|change|overwrite|write|record|store|save)\s+(?:the\s+|their\s+|his\s+|her\s+|a\s+)?(?:[a-z_]{1,40}\s+)?(?:custom\s+)?field\b|\bin (?:the|their|a) custom field\b`,
    ),
  },
  {
    name: 'call a tool',
    re: /\b(?:call|use|invoke|run|execute|trigger)\s+(?:the\s+)?(?:[a-z]+_[a-z_]+\s+)?(?:tool|function)s?\b|\bstage\s+(?:an?\s+|the\s+)?(?:action|tool|call|flow|tag|write)\b/,
  },
  {
    name: 'standing order about contacts',
    re: /\b(?:every|each|all|any)\s+(?:customer|contact|user|subscriber|client|person|one)s?\s+(?:who|that|asking)\b[^.\n]{0,60}\b(?:gets?|receives?|must get|should get|is to be|are to be)\s+(?:the\s+|a\s+)?(?:["'][^"']{1,40}["']\s+|[a-z_]{1,40}\s+)?(?:tag|label|flow|field)\b/,
  },
];

/** Names of the patterns the text matches (normalised and leet-undone readings), none → []. */
export function matchPatterns(text: string, patterns: readonly NamedPattern[]): string[] {
  if (!text) return [];
  const unescape = (t: string) =>
    t.includes('\\') ? t.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\') : t;
  const cased = unescape(normalizeKeepCase(text));
  const normalized = normalizeText(text);
  // Text read out of a JSON envelope carries escaped quotes and newlines; read those plainly too.
  // Look-alike letters too: "іgnore" with a Ukrainian "і" is "ignore" to a model.
  // And with accents folded (Turkish dotless ı too): the other languages' patterns are written without them.
  // (One mark at a time: with the g flag a run is removed either way.)
  const folded = unConfuse(normalized).normalize('NFKD').replace(/\p{M}/gu, '').replace(/ı/g, 'i');
  const readings = [normalized, unLeet(normalized), unescape(normalized), unConfuse(normalized), folded];
  const hits: string[] = [];
  for (const p of patterns)
    if (p.caseSensitive ? p.re.test(cased) : readings.some((r) => p.re.test(r))) hits.push(p.name);
  return hits;
}

/**
 * Mentions of the tenant's internal tool names (e.g. `tag_contact`): contacts never see them, so
 * their presence in data is the `tool_knowledge` attack. Names without `_` are ordinary words.
 */
export function mentionsToolNames(text: string, toolNames: readonly string[]): string[] {
  const normalized = normalizeText(text);
  return toolNames.filter(
    (n) => n.includes('_') && new RegExp(`(?:^|[^a-z0-9_])${n}(?:[^a-z0-9_]|$)`).test(normalized),
  );
}
