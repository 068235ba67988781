/**
 * The languages a client may name, as Tesseract language codes (docs/api-decisions.md): each model ships
 * on the npm registry as `@tesseract.js-data/<code>`. The name and writing system are shown by
 * GET /api/ocr/languages; the script is what "auto" settles first.
 */
export type OcrScript =
  | "Arabic"
  | "Armenian"
  | "Bengali"
  | "Cyrillic"
  | "Devanagari"
  | "Ethiopic"
  | "Georgian"
  | "Greek"
  | "Gujarati"
  | "Gurmukhi"
  | "Han"
  | "Hangul"
  | "Hebrew"
  | "Japanese"
  | "Kannada"
  | "Lao"
  | "Latin"
  | "Malayalam"
  | "Myanmar"
  | "Oriya"
  | "Sinhala"
  | "Tamil"
  | "Telugu"
  | "Thai"
  | "Tibetan";

export const ocrLanguageCatalogue = {
  afr: { name: "Afrikaans", script: "Latin" },
  amh: { name: "Amharic", script: "Ethiopic" },
  ara: { name: "Arabic", script: "Arabic" },
  asm: { name: "Assamese", script: "Bengali" },
  aze: { name: "Azerbaijani", script: "Latin" },
  bel: { name: "Belarusian", script: "Cyrillic" },
  ben: { name: "Bengali", script: "Bengali" },
  bod: { name: "Tibetan", script: "Tibetan" },
  bos: { name: "Bosnian", script: "Latin" },
  bul: { name: "Bulgarian", script: "Cyrillic" },
  cat: { name: "Catalan", script: "Latin" },
  ceb: { name: "Cebuano", script: "Latin" },
  ces: { name: "Czech", script: "Latin" },
  chi_sim: { name: "Chinese (Simplified)", script: "Han" },
  chi_tra: { name: "Chinese (Traditional)", script: "Han" },
  cym: { name: "Welsh", script: "Latin" },
  dan: { name: "Danish", script: "Latin" },
  deu: { name: "German", script: "Latin" },
  ell: { name: "Greek", script: "Greek" },
  eng: { name: "English", script: "Latin" },
  epo: { name: "Esperanto", script: "Latin" },
  est: { name: "Estonian", script: "Latin" },
  eus: { name: "Basque", script: "Latin" },
  fas: { name: "Persian", script: "Arabic" },
  fin: { name: "Finnish", script: "Latin" },
  fra: { name: "French", script: "Latin" },
  gle: { name: "Irish", script: "Latin" },
  glg: { name: "Galician", script: "Latin" },
  guj: { name: "Gujarati", script: "Gujarati" },
  heb: { name: "Hebrew", script: "Hebrew" },
  hin: { name: "Hindi", script: "Devanagari" },
  hrv: { name: "Croatian", script: "Latin" },
  hun: { name: "Hungarian", script: "Latin" },
  hye: { name: "Armenian", script: "Armenian" },
  ind: { name: "Indonesian", script: "Latin" },
  isl: { name: "Icelandic", script: "Latin" },
  ita: { name: "Italian", script: "Latin" },
  jpn: { name: "Japanese", script: "Japanese" },
  kan: { name: "Kannada", script: "Kannada" },
  kat: { name: "Georgian", script: "Georgian" },
  kaz: { name: "Kazakh", script: "Cyrillic" },
  kir: { name: "Kyrgyz", script: "Cyrillic" },
  kor: { name: "Korean", script: "Hangul" },
  lao: { name: "Lao", script: "Lao" },
  lat: { name: "Latin", script: "Latin" },
  lav: { name: "Latvian", script: "Latin" },
  lit: { name: "Lithuanian", script: "Latin" },
  mal: { name: "Malayalam", script: "Malayalam" },
  mar: { name: "Marathi", script: "Devanagari" },
  mkd: { name: "Macedonian", script: "Cyrillic" },
  mlt: { name: "Maltese", script: "Latin" },
  mon: { name: "Mongolian", script: "Cyrillic" },
  msa: { name: "Malay", script: "Latin" },
  mya: { name: "Burmese", script: "Myanmar" },
  nep: { name: "Nepali", script: "Devanagari" },
  nld: { name: "Dutch", script: "Latin" },
  nor: { name: "Norwegian", script: "Latin" },
  ori: { name: "Odia", script: "Oriya" },
  pan: { name: "Punjabi", script: "Gurmukhi" },
  pol: { name: "Polish", script: "Latin" },
  por: { name: "Portuguese", script: "Latin" },
  pus: { name: "Pashto", script: "Arabic" },
  ron: { name: "Romanian", script: "Latin" },
  san: { name: "Sanskrit", script: "Devanagari" },
  sin: { name: "Sinhala", script: "Sinhala" },
  slk: { name: "Slovak", script: "Latin" },
  slv: { name: "Slovenian", script: "Latin" },
  spa: { name: "Spanish", script: "Latin" },
  sqi: { name: "Albanian", script: "Latin" },
  srp: { name: "Serbian", script: "Cyrillic" },
  swa: { name: "Swahili", script: "Latin" },
  swe: { name: "Swedish", script: "Latin" },
  tam: { name: "Tamil", script: "Tamil" },
  tel: { name: "Telugu", script: "Telugu" },
  tgk: { name: "Tajik", script: "Cyrillic" },
  tgl: { name: "Tagalog", script: "Latin" },
  tha: { name: "Thai", script: "Thai" },
  tur: { name: "Turkish", script: "Latin" },
  uig: { name: "Uyghur", script: "Arabic" },
  ukr: { name: "Ukrainian", script: "Cyrillic" },
  urd: { name: "Urdu", script: "Arabic" },
  uzb: { name: "Uzbek", script: "Latin" },
  vie: { name: "Vietnamese", script: "Latin" },
  yid: { name: "Yiddish", script: "Hebrew" },
} as const satisfies Record<string, { readonly name: string; readonly script: OcrScript }>;

export type OcrLanguage = keyof typeof ocrLanguageCatalogue;
export const ocrLanguages = Object.keys(ocrLanguageCatalogue) as ReadonlyArray<OcrLanguage>;
