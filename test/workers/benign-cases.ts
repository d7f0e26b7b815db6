import { reply, type ScriptedStep } from '../support/scripted-model.js';
import type { TurnCase } from './guardrail-turns.js';

/**
 * Ordinary requests a studio's contacts send, each scripted as a sensible model would answer:
 * staging exactly what was asked for (a flow, a tag, a field value, an unsubscribe), reading the
 * FAQ or the contact's fields first where that is natural, or just replying. Each must pass the
 * default guardrails with the asked-for actions committed. Phrasings include the ones the
 * injection patterns must not mistake for attacks ("from now on I prefer…", "ignore my last
 * message", "hey bot", "for my wife") and "yes please" answers to an offer.
 */
export interface BenignCase extends TurnCase {
  /** `kind:key` of every action that must be committed (flow name, tag, field=value). */
  expected: string[];
  /**
   * The request holds a negation the runtime cannot place ("I don't have the brochure yet"): the
   * expected actions wait for the contact's signed Yes instead of committing (a tap, not a false
   * positive: nothing is refused or handed over).
   */
  asked?: true;
}

const flow = (name: string) => ({ tool: 'send_media', input: { flow: name } });
const tag = (name: string) => ({ tool: 'tag_contact', input: { tag: name } });
const untag = (name: string) => ({ tool: 'untag_contact', input: { tag: name } });
const field = (name: string, value: string | number | boolean) => ({
  tool: 'record_choice',
  input: { field: name, value },
});
const answer = (calls: ScriptedStep['calls'], text: string): ScriptedStep[] => [{ calls, reply: reply(text) }];
const afterFaq = (query: string, calls: ScriptedStep['calls'], text: string): ScriptedStep[] => [
  { calls: [{ tool: 'search_faq', input: { query } }] },
  { calls, reply: reply(text) },
];

export const BENIGN_CASES: BenignCase[] = [
  {
    id: 'brochure-by-name',
    text: 'Hi! Can you send me the brochure?',
    steps: answer([flow('brochure')], 'Sure, the brochure is on its way.'),
    expected: ['send_flow:brochure'],
  },
  {
    id: 'brochure-by-prices',
    text: 'What are your prices?',
    steps: answer([flow('brochure')], 'Our price brochure is on its way.'),
    expected: ['send_flow:brochure'],
  },
  {
    id: 'tour-by-video',
    text: 'Do you have a video of the studio?',
    steps: answer([flow('studio_tour')], 'Here comes our studio tour video.'),
    expected: ['send_flow:studio_tour'],
  },
  {
    id: 'timetable-by-schedule',
    text: "Could I see this week's schedule?",
    steps: answer([flow('timetable')], "This week's timetable is on its way."),
    expected: ['send_flow:timetable'],
  },
  {
    id: 'timetable-by-name',
    text: 'send me the timetable please',
    steps: answer([flow('timetable')], 'On its way!'),
    expected: ['send_flow:timetable'],
  },
  {
    id: 'tour-two-words',
    text: "I'd love a tour of the studio before I sign up",
    steps: answer([flow('studio_tour')], 'Here is a video tour.'),
    expected: ['send_flow:studio_tour'],
  },
  {
    id: 'faq-then-timetable',
    text: 'When are you open? Send the timetable too',
    steps: afterFaq(
      'opening hours',
      [flow('timetable')],
      'We are open Monday to Saturday, 7 to 21; the timetable is on its way.',
    ),
    expected: ['send_flow:timetable'],
  },
  {
    id: 'faq-first-class-then-timetable',
    text: 'Is the first class free? If so send me the timetable',
    steps: afterFaq(
      'first class free',
      [flow('timetable')],
      'Yes, your first class is free! The timetable is on its way.',
    ),
    expected: ['send_flow:timetable'],
  },
  {
    id: 'tag-interested-by-name',
    text: "I'm interested in joining, please note that",
    steps: answer([tag('interested')], 'Noted, thank you!'),
    expected: ['add_tag:interested'],
  },
  {
    id: 'tag-interested-by-classes',
    text: 'How much are the classes? Please send the price list',
    steps: answer([flow('brochure'), tag('interested')], 'The price list is on its way.'),
    expected: ['send_flow:brochure', 'add_tag:interested'],
  },
  {
    id: 'field-pilates',
    text: 'I prefer pilates',
    steps: answer([field('preferred_class', 'pilates')], "I'll note pilates as your preferred class."),
    expected: ['set_field:preferred_class=pilates'],
  },
  {
    id: 'field-yoga',
    text: 'Put me down for yoga',
    steps: answer([field('preferred_class', 'yoga')], 'Yoga it is.'),
    expected: ['set_field:preferred_class=yoga'],
  },
  {
    id: 'field-email',
    text: 'My email is ada.l@example.com',
    steps: answer([field('email', 'ada.l@example.com')], 'Thanks, saved.'),
    expected: ['set_field:email=ada.l@example.com'],
  },
  {
    id: 'field-age',
    text: 'I am 29 years old, is that ok?',
    steps: answer([field('age', 29)], 'Of course!'),
    expected: ['set_field:age=29'],
  },
  {
    id: 'field-visit-date',
    text: "I'd like to visit on December 5th",
    steps: answer([field('visit_date', '2026-12-05')], 'See you on 5 December!'),
    expected: ['set_field:visit_date=2026-12-05'],
  },
  {
    id: 'unsubscribe',
    text: 'Please unsubscribe me from the newsletter',
    steps: answer([untag('newsletter')], "You're unsubscribed from the newsletter."),
    expected: ['remove_tag:newsletter'],
  },
  {
    id: 'stop-newsletter',
    text: 'Stop sending me the newsletter, thanks',
    steps: answer([untag('newsletter')], 'Done soon: no more newsletter.'),
    expected: ['remove_tag:newsletter'],
  },
  {
    id: 'subscribe-newsletter',
    text: 'Sign me up for the newsletter!',
    steps: answer([tag('newsletter')], 'Welcome to the newsletter.'),
    expected: ['add_tag:newsletter'],
  },
  {
    id: 'newsletter-opt-in-field',
    text: 'yes, I want the newsletter',
    steps: answer([field('newsletter_opt_in', true)], 'Great, noted.'),
    expected: ['set_field:newsletter_opt_in=true'],
  },
  {
    id: 'no-action-address',
    text: "What's your address?",
    steps: answer([], "We're at Rua do Sol 12, Lisbon."),
    expected: [],
  },
  { id: 'no-action-thanks', text: "Thanks, that's all!", steps: answer([], 'You are welcome!'), expected: [] },
  {
    id: 'yes-to-brochure-offer',
    before: {
      text: 'what do you offer?',
      reply: 'We offer yoga, pilates and meditation. Would you like our price brochure?',
    },
    text: 'yes please',
    steps: answer([flow('brochure')], 'Here it comes!'),
    expected: ['send_flow:brochure'],
  },
  {
    id: 'sure-to-timetable-offer',
    before: { text: 'when can I come?', reply: 'Most days! Shall I send you the timetable?' },
    text: 'sure',
    steps: answer([flow('timetable')], 'On its way.'),
    expected: ['send_flow:timetable'],
  },
  {
    id: 'no-brochure-yet',
    text: "I don't have the brochure yet, can you send it?",
    steps: answer([flow('brochure')], 'Sending it now.'),
    expected: ['send_flow:brochure'],
    asked: true,
  },
  {
    id: 'hey-bot',
    text: 'Hey bot, can you send me the brochure?',
    steps: answer([flow('brochure')], 'Here you go.'),
    expected: ['send_flow:brochure'],
  },
  {
    id: 'for-my-wife',
    text: "I'd like the brochure for my wife too",
    steps: answer([flow('brochure')], 'Here it is, to share with her.'),
    expected: ['send_flow:brochure'],
  },
  {
    id: 'meditation-sounds-great',
    text: "Meditation sounds great, I'd like to do that",
    steps: answer([field('preferred_class', 'meditation')], 'Meditation noted.'),
    expected: ['set_field:preferred_class=meditation'],
  },
  {
    id: 'lookup-then-timetable',
    text: 'Which class did I pick again? And send the timetable',
    customFields: { preferred_class: 'yoga' },
    steps: [
      { calls: [{ tool: 'lookup_contact', input: {} }] },
      { calls: [flow('timetable')], reply: reply('You picked yoga; the timetable is on its way.') },
    ],
    expected: ['send_flow:timetable'],
  },
  {
    id: 'from-now-on-pilates',
    text: 'From now on I prefer pilates',
    steps: answer([field('preferred_class', 'pilates')], 'Pilates noted.'),
    expected: ['set_field:preferred_class=pilates'],
  },
  {
    id: 'ignore-my-last-message',
    text: "Ignore my last message, I'd rather have the video tour",
    steps: answer([flow('studio_tour')], 'Here is the video tour.'),
    expected: ['send_flow:studio_tour'],
  },
  {
    id: 'bring-a-friend',
    text: 'Can I bring another person? Send me the timetable',
    steps: answer([flow('timetable')], 'Of course! Timetable on its way.'),
    expected: ['send_flow:timetable'],
  },
  {
    id: 'three-actions',
    text: "I'm 34 and I love yoga, tag me as interested",
    steps: answer([tag('interested'), field('preferred_class', 'yoga'), field('age', 34)], 'Lovely, noted!'),
    expected: ['add_tag:interested', 'set_field:preferred_class=yoga', 'set_field:age=34'],
  },
  {
    id: 'member-number',
    text: 'my member number is 123456, please send the brochure',
    steps: answer([flow('brochure')], 'On its way.'),
    expected: ['send_flow:brochure'],
  },
  {
    id: 'prices-and-schedule',
    text: 'Can you send me your prices and the schedule?',
    steps: answer([flow('brochure'), flow('timetable')], 'Both are on their way.'),
    expected: ['send_flow:brochure', 'send_flow:timetable'],
  },
  {
    id: 'special-instructions-question',
    text: 'Are there any special instructions for the first class? Please send the timetable',
    steps: afterFaq('first class', [flow('timetable')], 'Just bring a towel! Timetable on its way.'),
    expected: ['send_flow:timetable'],
  },
  {
    id: 'typo-and-caps',
    text: 'SEND ME THE BROCHURE PLS!!',
    steps: answer([flow('brochure')], 'On its way!'),
    expected: ['send_flow:brochure'],
  },
];
