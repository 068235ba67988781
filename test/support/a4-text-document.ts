import sharp from "sharp";
import { pdfOf } from "./document-fixtures.ts";

/**
 * A text document as a customer scans one: A4 pages at 300 dpi (2480 × 3508 px), 10 pt DejaVu
 * Serif between 2 cm margins, each page a grey JPEG in a PDF (test/support/document-fixtures.ts),
 * with the text each page holds as its ground truth. The text is made here from a seed (a
 * report's sentences with numbers, dates and names), so that every run reads the same pages and
 * no page repeats another.
 */
export const a4 = { width: 2480, height: 3508, dpi: 300, margin: 236 } as const;

const sentences = [
  "The board met on {day} {month} to review the accounts for the quarter ending {month}.",
  "Revenue rose by {pct} per cent to {amount}, while operating costs fell to {amount}.",
  "Invoice {ref} of {day} {month} remains unpaid; a reminder was sent to {name} on {day} {month}.",
  "The warehouse in {city} shipped {count} orders, of which {small} were returned for exchange.",
  "{name} presented the new schedule for deliveries, which starts on {day} {month}.",
  "Customers in {city} waited {small} minutes on average before their call was answered.",
  "The committee agreed to replace {small} of the older vehicles before the winter.",
  "Payments received after the due date will carry a charge of {pct} per cent a month.",
  "The audit found no material errors; two minor findings were closed by {day} {month}.",
  "Staff training took {count} hours this quarter, mostly on safety and on the new software.",
  "A lease for the office in {city} was signed for five years at {amount} a year.",
  "{name} asked that the figures for {city} be checked against the bank statements.",
  "Energy use fell by {pct} per cent after the heating in the main building was renewed.",
  "The next meeting will take place on {day} {month} at {hour} in the large conference room.",
  "Orders placed before noon are dispatched the same day; others leave the next morning.",
  "The reserve fund now holds {amount}, enough to cover {small} months of fixed costs.",
  "Complaints about late deliveries dropped from {count} to {small} since the new carrier began.",
  "Account {ref} was closed at the request of {name}, and its balance of {amount} refunded.",
  "The printing of the annual report was moved to {city} to reduce its cost by {pct} per cent.",
  "Each department will send its budget for next year to {name} before {day} {month}.",
];
const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const cities = ["Leeds", "Bristol", "Glasgow", "Cardiff", "Norwich", "Exeter", "York", "Dundee", "Bath", "Chester"];
const names = ["Mrs Patel", "Mr Jones", "Dr Evans", "Ms Murray", "Mr Clarke", "Mrs Walsh", "Ms Hughes", "Mr Baker"];

/** mulberry32: a small seeded generator, so the document is the same in every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const filler = (random: () => number) => {
  const pick = <A>(list: ReadonlyArray<A>) => list[Math.floor(random() * list.length)]!;
  const int = (from: number, to: number) => from + Math.floor(random() * (to - from + 1));
  const values: Record<string, () => string> = {
    day: () => String(int(1, 28)),
    month: () => pick(months),
    pct: () => `${int(1, 19)}.${int(0, 9)}`,
    amount: () => `£${int(10, 990)},${String(int(0, 999)).padStart(3, "0")}`,
    ref: () => `${pick(["INV", "ACC", "PO"])}-${int(10_000, 99_999)}`,
    name: () => pick(names),
    city: () => pick(cities),
    count: () => String(int(120, 9_800)),
    small: () => String(int(2, 48)),
    hour: () => `${int(9, 16)}:${pick(["00", "15", "30", "45"])}`,
  };
  return (sentence: string) => sentence.replace(/\{(\w+)\}/gu, (_, key: string) => values[key]!());
};

/** Page `number`'s text: a heading and paragraphs of about `characters` characters, lines wrapped by the renderer. */
export const pageText = (number: number, pages: number, characters: number): string => {
  const random = seeded(number * 7919);
  const fill = filler(random);
  const paragraphs: Array<string> = [];
  let length = 0;
  while (length < characters) {
    const paragraph = Array.from({ length: 3 + Math.floor(random() * 3) }, () => fill(sentences[Math.floor(random() * sentences.length)]!)).join(" ");
    paragraphs.push(paragraph);
    length += paragraph.length;
  }
  return [`Quarterly report, page ${number} of ${pages}`, ...paragraphs].join("\n\n");
};

const escapeMarkup = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** One page: the text drawn at 300 dpi between the margins on white A4, as a grey JPEG. */
export const a4Page = async (text: string, quality: number): Promise<Uint8Array> => {
  const width = a4.width - 2 * a4.margin;
  const drawn = await sharp({
    text: {
      text: `<span foreground="#1a1a1a">${escapeMarkup(text)}</span>`,
      font: "DejaVu Serif 10",
      width,
      dpi: a4.dpi,
      rgba: true,
      spacing: 14,
      wrap: "word",
    },
  })
    .png()
    .toBuffer();
  const { height = 0 } = await sharp(drawn).metadata();
  if (height > a4.height - 2 * a4.margin) throw new Error(`the page's text is ${height} px high; it must fit ${a4.height - 2 * a4.margin} px`);
  const page = await sharp({ create: { width: a4.width, height: a4.height, channels: 3, background: "#ffffff" } })
    .composite([{ input: drawn, left: a4.margin, top: a4.margin }])
    .png()
    .toBuffer();
  return new Uint8Array(await sharp(page).toColourspace("b-w").jpeg({ quality }).toBuffer());
};

export interface TextDocument {
  readonly pdf: Uint8Array;
  /** Each page's text, in order. */
  readonly truths: ReadonlyArray<string>;
  readonly jpegQuality: number;
}

/**
 * `pages` A4 pages of about `characters` characters each, as a PDF of at most `maxBytes`: the
 * JPEG quality is lowered from `firstQuality` in steps of 5 until it fits (20 pages of 2,600
 * characters fit 10 MiB at 45).
 */
export const a4TextDocument = async (pages = 20, characters = 2600, maxBytes = 10 * 2 ** 20, firstQuality = 90): Promise<TextDocument> => {
  const truths = Array.from({ length: pages }, (_, index) => pageText(index + 1, pages, characters));
  for (let quality = firstQuality; quality >= 30; quality -= 5) {
    const images = await Promise.all(truths.map((truth) => a4Page(truth, quality)));
    const pdf = await pdfOf(images, {}, a4.dpi);
    if (pdf.length <= maxBytes) return { pdf, truths, jpegQuality: quality };
  }
  throw new Error(`${pages} pages do not fit ${maxBytes} bytes even at JPEG quality 30`);
};
