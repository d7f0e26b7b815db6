/**
 * Whether a sentence is written in a language whose "no" the runtime can read.
 *
 * The request lexicon (action-support.ts) reads negation, removal and questions in the eight
 * languages served. In any other language a contact's "no" is just an unknown word: "geen
 * newsletter alsjeblieft" names the tag plainly and, read word by word, asks for it. So before a
 * naming counts as the contact's request, the sentence around it must be readable: most of its
 * other words are words of a served language, and none is in a script or letter no served
 * language uses. Where it is not, the runtime cannot tell, and the contact is asked with the
 * signed button: one tap in an unserved language, never a silent commit on a word it could not
 * read.
 *
 * Not a language identifier: a short list of the function words (articles, pronouns,
 * prepositions, conjunctions, greetings, the commonest verbs of asking) of each served language,
 * accents folded as `wordsOf` folds them. A served-language sentence full of content words the list
 * does not know costs a tap as well; the lists favour the short words every sentence has.
 */

const FUNCTION_WORDS: Readonly<Record<string, string>> = {
  en:
    'a an the and or but if of in on at to for from by with about as into over up out off is are was were be been am ' +
    'do does did have has had will would can could may might must shall should i me my mine we us our you your he him his ' +
    'she her they them their it its this that these those there here what which who when where why how all any some ' +
    'no not so than too very just also only please pls plz thanks thank thx ty hi hello hey ok okay yes yeah want need ' +
    'get give send like would love prefer see know tell show today tomorrow now again still more much many u ur im ive id ill lets let',
  es:
    'el la los las un una unos unas de del al a en con sin por para y o u e que quien como cuando donde cual cuanto ' +
    'cuanta cuantos cuantas mi mis me te se nos lo le les su sus tu tus yo usted ustedes es son esta estan este esto ' +
    'eso ese esa muy mas pero si no ya hola buenas buenos dias gracias favor porfa quiero quisiera necesito puedes ' +
    'podrias pueden gustaria gusta prefiero hoy manana ahora tambien sobre hay tengo tiene ser estar',
  pt:
    'o a os as um uma uns umas de do da dos das em no na nos nas num numa com sem por para pelo pela e ou que quem ' +
    'como quando onde qual quanto quanta quantos meu minha meus minhas me te se lhe voce voces vc eu ele ela sao esta ' +
    'estao este isto isso esse essa muito mais mas sim nao ja ola oi obrigado obrigada favor quero queria preciso ' +
    'pode podem poderia gostaria gosto prefiro hoje amanha agora tambem sobre tem tenho bom dia',
  de:
    'der die das den dem des ein eine einen einem einer und oder aber mit ohne fur von vom zu zum zur im in an am auf ' +
    'aus bei nach uber ich mich mir mein meine meinen meinem du dich dir dein deine sie ihr ihnen wir uns unser es ist ' +
    'sind bin bist war bitte danke hallo gerne ja nein nicht kein noch schon auch sehr mehr wie was wann wo welche ' +
    'welcher mochte will wollen brauche kann konnen konnt kannst hatte gern lieber liebsten mag gibt haben habt sehen ' +
    'euer eure ihre schick schickt heute morgen jetzt guten tag mal',
  fr:
    'le la les l un une des du de d au aux a en dans sur avec sans pour par et ou que qu qui quoi comment quand combien ' +
    'mon ma mes me m moi te t toi tu vous nous il elle ils elles se s est sont suis ce cet cette ces c tres plus mais ' +
    'oui non pas ne n bonjour salut merci svp stp plait je j veux voudrais besoin pouvez peux aujourd hui demain ' +
    'maintenant aussi vos votre notre nos leur leurs y aime aimerais prefere',
  it:
    'il lo la i gli le l un uno una di del dello della dei degli delle da dal dallo dalla dai dagli dalle al allo alla ' +
    'ai agli alle in nel nello nella nei negli con senza per su sul e ed o che ' +
    'chi come quando dove quanto quanti mio mia miei mie mi ti si ci vi lui lei noi voi loro io tu sono sta questo ' +
    'questa quello molto piu ma no gia ciao buongiorno grazie favore vorrei voglio ho bisogno potete puoi oggi ' +
    'domani adesso ora anche preferisco piace piacerebbe',
  tr:
    'bir ve veya ile icin bu su o ben beni bana benim sen seni sana senin siz sizi size sizin biz bize ne nasil nerede ' +
    'zaman kac mi mu da de ki cok daha ama evet hayir lutfen tesekkurler tesekkur merhaba selam istiyorum isterim ' +
    'gonderin gonder misin misiniz miyim alabilir nedir neler hakkinda var yok bugun yarin simdi tercih ediyorum',
  id:
    'yang dan atau dengan untuk dari di ke pada ini itu saya aku kamu anda kami kita dia mereka ada apa bagaimana ' +
    'kapan dimana berapa sangat lebih tapi tetapi ya tidak sudah belum akan bisa mau ingin minta tolong terima kasih ' +
    'halo hai kirim kirimkan hari besok sekarang juga nya dong deh kak gimana apakah suka pilih',
};

/** Every served language's function words, one set (folded, lower case). */
export const SERVED_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  Object.values(FUNCTION_WORDS).flatMap((list) => list.split(' ')),
);

/**
 * Letters of the served languages once `wordsOf` has folded them (accents removed, Turkish ı → i):
 * a–z, German ß and French œ/æ. A word with any other letter (Cyrillic, Greek, Arabic, CJK, Polish
 * ł, Danish ø…) is from a language the runtime does not read.
 */
const SERVED_LETTERS = /^[a-zßœæ0-9']*$/;

/** A word the runtime reads: known as a whole or, elided ("l'horaire", "i'd"), by one of its parts. */
function known(word: string, isKnown: (word: string) => boolean): boolean {
  return isKnown(word) || (word.includes("'") && word.split("'").some((part) => part && isKnown(part)));
}

/**
 * Whether the runtime can read a sentence's words around a naming: `others` are its words that are
 * not the naming (folded, as `wordsOf` gives them; numbers are dropped here). Readable when none
 * has a letter no served language uses and at least half of them are words of a served language
 * (`isKnown`: the caller's lexicon, which should include `SERVED_FUNCTION_WORDS`). A bare naming
 * ("newsletter", "brochure?") has no other words to misread: readable.
 */
export function readableAround(others: readonly string[], isKnown: (word: string) => boolean): boolean {
  const words = others.filter((w) => !/^[0-9]+$/.test(w));
  if (!words.length) return true;
  if (words.some((w) => !SERVED_LETTERS.test(w))) return false;
  const read = words.filter((w) => known(w, isKnown)).length;
  return read * 2 >= words.length;
}
