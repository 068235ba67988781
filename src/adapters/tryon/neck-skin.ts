import type { RawImage } from "../image/raw-decoding.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import type { FaceSkin } from "./face-skin.ts";
import type { Box } from "./garment/garment-fit.ts";
import { clothesShare, type GarmentLayer, paintedBox, paintUnder, ramp, sampler, SOLID } from "./skin-paint.ts";
import type { Torso } from "./torso.ts";

/**
 * The old clothes between the chin and the new garment's neckline (a turtleneck's roll, a collar
 * buttoned up, a higher crew neck), painted as the wearer's skin, under the garment's soft edge:
 * a crew neck shows the neck, not the knit the photo had there.
 *
 * Column by column across the neck, the walk goes up from where the garment is solid: the old
 * clothes meet the neckline, and end where the skin, the backdrop or hair begins, END_RUN on. A pixel
 * on the way is painted as far as it is the person (the silhouette), not in front (hair over the
 * neck, a hand: hair-in-front.ts, hands-in-front.ts), and not skin, in the face's light or in
 * shadow (face-skin.ts): a bare neck, its shadow under the chin and the ears stay as they were.
 * The paint is the face's median colour, darker under the chin and lighter lower, flat otherwise:
 * nothing of the old clothes' texture is kept, and no texture is invented.
 * Not told apart: a warm-coloured garment (tan, rust, pink) reads as skin and stays; a beard the
 * hair model misses is painted as skin.
 */

/**
 * The face's ellipse (torso.ts) reaches below the chin with a margin. Within it, nothing above
 * BELOW_NOSE (in its half widths below its centre, which is about the eyes' level) is painted, and
 * between the cheeks (MOUTH_HALF_WIDTH to each side: the ears are 0.67 away) nothing above
 * BELOW_MOUTH (0.85 below the eyes; the chin lies at 0.8-1.1), fading in over MOUTH_EDGE: the
 * eyes, lips, teeth and jaw are never painted, nor a helmet's ring or a hood close around them.
 */
const BELOW_NOSE = 0.6;
const BELOW_MOUTH = 1.0;
const MOUTH_HALF_WIDTH = 0.7;
const MOUTH_EDGE = 0.08;
/** The neck's columns: this far to each side of the face's centre, in shares of the shoulder width. */
const NECK_HALF_WIDTH = 0.45;
/** A neckline is looked for at most this far below the shoulder line (shares of the shoulder width). */
const NECKLINE_DEPTH = 0.6;
/** The painted skin's shade: this much of the tone just under the chin, rising to NECK_SHADE over SHADE_RUN shoulder widths. */
const CHIN_SHADE = 0.8;
const NECK_SHADE = 0.95;
const SHADE_RUN = 0.25;
/**
 * The walk up a column stops after this much (shares of the shoulder width) of skin, backdrop or
 * hair in a row: the old clothes ended there. Shorter, a knit's lit stitches, warm as skin, stopped it.
 */
const END_RUN = 0.02;

/**
 * Paints into `garment` (straight RGBA at the working resolution, the composite's garment layer)
 * and returns the box of what it painted, or undefined when nothing was.
 */
export const paintNeckSkin = (
  garment: GarmentLayer,
  image: RawImage,
  /** The silhouette, and what lies in front of the torso (hair-in-front.ts: the hair model's reading checked against the hair's colour; hands). */
  layers: { readonly person: ProbabilityMap; readonly front: ProbabilityMap },
  torso: Torso,
  skin: FaceSkin,
): Box | undefined => {
  const { rgba, width, height } = garment;
  const { face, shoulderWidth, shoulders } = torso;
  const person = sampler(layers.person, width, height);
  const front = sampler(layers.front, width, height);
  // The layer is at the photo's working size: each pixel's colour read straight from it.
  const { data, channels } = image;
  const chin = face.cy + face.ry;
  const left = Math.max(0, Math.floor(face.cx - NECK_HALF_WIDTH * shoulderWidth));
  const right = Math.min(width, Math.ceil(face.cx + NECK_HALF_WIDTH * shoulderWidth));
  const top = Math.max(0, Math.floor(face.cy));
  const bottom = Math.min(height, Math.ceil((shoulders[0].y + shoulders[1].y) / 2 + NECKLINE_DEPTH * shoulderWidth));
  const endRun = Math.max(3, END_RUN * shoulderWidth);
  const painted = paintedBox(width, height);
  for (let x = left; x < right; x++) {
    let solid = top;
    while (solid < bottom && rgba[4 * (solid * width + x) + 3]! < SOLID) solid++;
    // No garment below the face in this column: no neckline to meet.
    if (solid === bottom) continue;
    // Up from the neckline: the old clothes meet it, and end where the skin (or the backdrop) begins.
    let ended = 0;
    for (let y = solid - 1; y >= top && ended < endRun; y--) {
      const i = y * width + x;
      const body = ramp(person(x, y), 0.3, 0.7);
      const hidden = front(x, y);
      const at = i * channels;
      const r = data[at]!;
      const g = data[at + 1]!;
      const b = data[at + 2]!;
      const clothes = body === 0 || hidden >= 1 ? 0 : clothesShare(skin, r, g, b);
      // Hair or a hand over the neck ends the walk too: what is behind them is hidden anyway.
      ended = clothes < 0.5 || hidden >= 0.5 ? ended + 1 : 0;
      if (clothes === 0) continue;
      const inFace = ((x + 0.5 - face.cx) / face.rx) ** 2 + ((y + 0.5 - face.cy) / face.ry) ** 2 <= 1;
      const from = Math.abs(x + 0.5 - face.cx) < MOUTH_HALF_WIDTH * face.rx ? BELOW_MOUTH : BELOW_NOSE;
      const belowMouth = inFace ? ramp(y + 0.5, face.cy + from * face.rx, face.cy + (from + MOUTH_EDGE) * face.rx) : 1;
      const paint = belowMouth * body * clothes * (1 - hidden);
      if (paint <= 0) continue;
      const shade = CHIN_SHADE + (NECK_SHADE - CHIN_SHADE) * ramp(y + 0.5, chin, chin + SHADE_RUN * shoulderWidth);
      paintUnder(garment, i, skin.tone, shade, paint);
      painted.add(x, y);
    }
  }
  return painted.box();
};
