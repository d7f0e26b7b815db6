/**
 * Ordinary replies a business sends, in four languages, each the longest a reply may be (4,000
 * characters): prose with contact details, a schedule, a price list with order numbers. A save
 * runs the tenant's PII patterns over them with one turn's matcher budget: patterns that cannot
 * read an ordinary reply within it would veto real turns, so the save refuses them up front.
 */
const REPLY_CHARS = 4000;

const fill = (unit: string) => unit.repeat(Math.ceil(REPLY_CHARS / unit.length)).slice(0, REPLY_CHARS);

export const PATTERN_PROBE_TEXTS: readonly { name: string; text: string }[] = [
  {
    name: 'an English reply with contact details',
    text: fill(
      'Thanks, Ana! Your pilates class is on Tuesday 12 May at 18:30 (room 2). Write to info@studio.example or call +1 415 555 0123; ref. BK-20261129-001. ',
    ),
  },
  {
    name: 'a Spanish reply with contact details',
    text: fill(
      '¡Hola! Tu clase de pilates es el martes 12 a las 18:30. Escríbenos a reservas@estudio.es o llama al +34 600 123 456. Pedido nº 4821-77. ',
    ),
  },
  {
    name: 'a Portuguese reply with a schedule',
    text: fill(
      'Olá! Horários: seg. 07:00–08:00, qua. 12:15–13:00, sex. 19:30–20:30. Dúvidas: contato@estudio.com.br, (11) 98765-4321. Obrigado! ',
    ),
  },
  {
    name: 'a German price list',
    text: fill(
      'Kurs 12: 10er-Karte 149,00 € (Art.-Nr. 100731), Monatsabo 59,90 €, Probetraining 0,00 €; Bestellung 2026-0042. ',
    ),
  },
];
