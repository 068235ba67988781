import { createRequire } from "node:module";
import path from "node:path";
import { FONT_SCRIPTS, TEMPLATE_FONTS, type TemplateFont } from "../../../domain/account-templates/account-template-design.ts";

/**
 * The fonts the service draws text with, as npm packages (issue 45): `npm ci` brings them, so a
 * machine without any system font draws every family GET /templates/fonts lists. Each folder is
 * one package's TrueType files (licences: LICENSES/fonts.md); fontconfig is pointed at these alone.
 */
const require = createRequire(import.meta.url);
const packageFolder = (name: string, under = "") => path.join(path.dirname(require.resolve(`${name}/package.json`)), under);

export const shippedFontFolders = (): ReadonlyArray<string> => [
  packageFolder("dejavu-fonts-ttf", "ttf"),
  packageFolder("@expo-google-fonts/noto-sans"),
  packageFolder("@expo-google-fonts/noto-serif"),
  packageFolder("@expo-google-fonts/noto-sans-arabic"),
  packageFolder("@expo-google-fonts/noto-sans-hebrew"),
  packageFolder("@expo-google-fonts/noto-sans-sc"),
  packageFolder("@expo-google-fonts/noto-sans-tc"),
  packageFolder("@expo-google-fonts/noto-sans-kr"),
];

/**
 * Where fontconfig keeps its scan of the shipped folders for every process of this install
 * (node_modules/.cache, as other tools do): the first start scans the 250 MB of files (~1–2 s),
 * later ones, whatever their DATA_DIR, read the cache.
 */
export const sharedFontCacheFolder = (): string =>
  path.join(path.dirname(packageFolder("dejavu-fonts-ttf")), ".cache", "image-transformation-service-fontconfig");

/**
 * The families customers were given under Debian's names whose files are named otherwise on npm:
 * Google's split of Noto Sans CJK. Each is a fontconfig alias preferring these families in order;
 * the files of one family lack Hangul (and TC the Japanese forms of some kanji), which the next draws.
 */
export const FAMILY_ALIASES: Readonly<Partial<Record<TemplateFont, ReadonlyArray<string>>>> = {
  "Noto Sans CJK SC": ["Noto Sans SC", "Noto Sans KR"],
  "Noto Sans CJK TC": ["Noto Sans TC", "Noto Sans SC", "Noto Sans KR"],
};

/** A short sample of each script a family claims: drawn at start, so it is cheap. */
export const SCRIPT_SAMPLES: Readonly<Record<string, string>> = {
  Latin: "Ag",
  Greek: "Ωψ",
  Cyrillic: "Жя",
  Arabic: "مرحبا",
  Hebrew: "שלום",
  "Simplified Chinese": "图像",
  "Traditional Chinese": "圖像",
  Japanese: "ようこそ",
  Korean: "한국",
};

/** The fontconfig family whose own file draws `script` for `family`: an alias's member for the scripts its first file lacks. */
export const drawingFamily = (family: TemplateFont, script: string): string => {
  const members = FAMILY_ALIASES[family];
  if (members === undefined) return family;
  return script === "Korean" ? members.at(-1)! : members[0]!;
};

/** Every family with the scripts it claims, as the domain lists them. */
export const claimedScripts = (): ReadonlyArray<{ readonly family: TemplateFont; readonly scripts: ReadonlyArray<string> }> =>
  TEMPLATE_FONTS.map((family) => ({ family, scripts: FONT_SCRIPTS[family] }));
