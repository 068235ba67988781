import type { OcrLanguage } from "../../ports/engines/ocr-engine.ts";

/**
 * Tells apart the Latin-script languages the service reads, from recognised text.
 *
 * A stopword vote: function words make up a large share of any running text and differ
 * between these languages, so a page is identified reliably even when OCR garbles content
 * words or (read with a model of another language) drops diacritics, which is why matching
 * ignores accents. A word shared by several languages counts for each of them, divided among
 * them. A few letters only one of these languages uses add a vote. Short or ambiguous text
 * yields no answer; the caller keeps its default.
 */
export type LatinLanguage = Extract<OcrLanguage, "eng" | "deu" | "fra" | "spa" | "ita" | "por" | "nld">;

const stopwords: Record<LatinLanguage, string> = {
  eng: "the and of to in is that for it with as was on be at by this have from or are not you your we our will which an they has been their would there can if about",
  deu: "der die und den das von zu mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie einem über so zum wir ihre ihr ihnen oder uns",
  fra: "le la les de des et en un une du est que qui dans pour pas au sur par ne plus avec se ce il sont nous vous votre aux cette été ou mais leur à",
  spa: "el la los las de del y en que un una es por con para se no su al lo como más pero sus le ha me si sobre este esta entre cuando muy sin hasta desde nos usted",
  ita: "il la le lo gli di del della dei e che un una per in non con si da al alla sono è come ma più nel nella anche questo questa suo sua ha essere degli delle",
  por: "o a os as de do da dos das e que em um uma para com não no na por se mais como mas ao foi ele ela seu sua ou nos nas são pelo pela também já isso você",
  nld: "de het een en van in is dat op te zijn met voor niet aan er om ook als dan bij maar uit door wordt naar ze hij wij u uw deze dit nog kan heeft worden geen over onze",
};

/** Letters (after lower-casing) that, among these languages, only one writes. */
const distinctiveLetters: Partial<Record<LatinLanguage, RegExp>> = {
  deu: /[ßäöü]/g,
  spa: /[ñ¿¡]/g,
  por: /[ãõ]/g,
  ita: /[òì]/g,
};

const stripAccents = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "");

const votesByWord: ReadonlyMap<string, ReadonlyArray<LatinLanguage>> = (() => {
  const map = new Map<string, LatinLanguage[]>();
  for (const [language, words] of Object.entries(stopwords) as Array<[LatinLanguage, string]>) {
    for (const word of new Set(words.split(" ").map(stripAccents))) map.set(word, [...(map.get(word) ?? []), language]);
  }
  return map;
})();

/** Votes needed, and the lead over the runner-up, before the text counts as identified. */
const minimumVotes = 3;
const minimumLead = 1.25;

export const identifyLatinLanguage = (text: string): LatinLanguage | undefined => {
  const lower = text.toLowerCase();
  const scores = new Map<LatinLanguage, number>();
  const vote = (language: LatinLanguage, weight: number) => scores.set(language, (scores.get(language) ?? 0) + weight);
  for (const word of stripAccents(lower).match(/\p{L}+/gu) ?? []) {
    const languages = votesByWord.get(word);
    if (languages) for (const language of languages) vote(language, 1 / languages.length);
  }
  for (const [language, letters] of Object.entries(distinctiveLetters) as Array<[LatinLanguage, RegExp]>) {
    vote(language, 0.5 * (lower.match(letters)?.length ?? 0));
  }
  vote("nld", 0.5 * (lower.match(/ij/g)?.length ?? 0));
  const [best, second] = [...scores].sort((a, b) => b[1] - a[1]);
  if (!best || best[1] < minimumVotes) return undefined;
  return second && best[1] < minimumLead * second[1] ? undefined : best[0];
};
