import sharp from "sharp";
import type { TemplateFont } from "../../../domain/account-templates/account-template-design.ts";
import type { AvailableFont } from "../../../ports/engines/template-fonts.ts";
import { claimedScripts, drawingFamily, SCRIPT_SAMPLES } from "./shipped-font-families.ts";

/** A name no font has: fontconfig resolves it to its default face, as it would a family whose files are gone. */
const NO_SUCH_FAMILY = "its no such family";
/**
 * A family lacking the script, whose missing glyphs Pango draws as hex boxes ("tofu"): Noto faces
 * draw the same boxes (measured), so a Noto family's sample equal to these boxes lacks the glyphs.
 */
const tofuFamily = (script: string) => (["Latin", "Greek", "Cyrillic"].includes(script) ? "Noto Sans Hebrew" : "Noto Sans");

/** The sample drawn with `family` alone (Pango's fallback to other families off), as the ink's alpha, cut to the ink. */
const inkOf = async (family: string, sample: string): Promise<string> => {
  const { data, info } = await sharp({ text: { text: `<span fallback="false">${sample}</span>`, font: `${family} 24px`, dpi: 72, rgba: true } })
    .extractChannel(3)
    .trim({ background: "#000000", threshold: 0 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return `${info.width}x${info.height}:${data.toString("base64")}`;
};

export interface FontCheck {
  readonly available: ReadonlyArray<AvailableFont>;
  readonly unavailable: ReadonlyArray<{ readonly family: TemplateFont; readonly script: string; readonly reason: string }>;
}

/**
 * Draws a sample of each script every family claims with that family's own files (issue 45): a
 * family passes when each sample differs both from what a family that is not there draws and from
 * the hex boxes of missing glyphs. A family failing any of its scripts is left out. About 40 small
 * drawings. `claims`: every family's, as the domain lists them.
 */
export const checkFonts = async (claims = claimedScripts()): Promise<FontCheck> => {
  const references = new Map<string, Promise<string>>();
  const reference = (family: string, sample: string) => {
    const key = `${family}\n${sample}`;
    if (!references.has(key)) references.set(key, inkOf(family, sample));
    return references.get(key)!;
  };
  const available: Array<AvailableFont> = [];
  const unavailable: Array<FontCheck["unavailable"][number]> = [];
  for (const { family, scripts } of claims) {
    const failures = (
      await Promise.all(
        scripts.map(async (script): Promise<ReadonlyArray<FontCheck["unavailable"][number]>> => {
          const sample = SCRIPT_SAMPLES[script]!;
          const [drawn, absent, tofu] = await Promise.all([
            inkOf(drawingFamily(family, script), sample),
            reference(NO_SUCH_FAMILY, sample),
            reference(tofuFamily(script), sample),
          ]);
          // Hex boxes first: a face that is not there draws them too where it lacks the script.
          if (drawn === tofu) return [{ family, script, reason: `${sample} draws as hex boxes: its files are missing or lack these glyphs` }];
          if (drawn === absent) return [{ family, script, reason: "its font files are not found" }];
          return [];
        }),
      )
    ).flat();
    if (failures.length === 0) available.push({ family, scripts });
    else unavailable.push(...failures);
  }
  return { available, unavailable };
};
