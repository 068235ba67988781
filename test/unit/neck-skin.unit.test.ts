import { describe, expect, it } from "vitest";
import type { RawImage } from "../../src/adapters/image/raw-decoding.ts";
import { faceSkin } from "../../src/adapters/tryon/face-skin.ts";
import { paintNeckSkin } from "../../src/adapters/tryon/neck-skin.ts";
import { DRAWN_SIZE, drawnMap, drawnTorso } from "../fixtures/tryon/drawn-body.ts";

/**
 * The old clothes between the chin and the new garment's neckline painted as skin, on a drawn
 * 200×200 scene: a face (skin, 220/170/150) whose ellipse is centred at (100, 50), shoulders at
 * y 100, 80 px apart, the new garment solid from y 110 down (x 60-140), and below the chin (y 72)
 * either a grey knit (a turtleneck) or the bare neck, 60 px wide; a blue backdrop beside them.
 */
const SIZE = DRAWN_SIZE;
const SKIN = [220, 170, 150] as const;
const SHADOWED_SKIN = [150, 108, 92] as const;
const KNIT = [182, 182, 178] as const;
const TEETH = [245, 245, 240] as const;
const map = drawnMap;
const torso = drawnTorso;
/** The silhouette: the face, the neck (x 70-130) and the body under the garment. */
const person = map((x, y) => ((x - 100) / 20) ** 2 + ((y - 50) / 27) ** 2 <= 1 || (x >= 70 && x < 130 && y >= 60) || (x >= 60 && x < 140 && y >= 110));
const noHair = map(() => false);
const nothingInFront = map(() => false);

/** The photo: the face down to the chin (y 72), under it `neck` down to the garment, `extra` over it all. */
const photo = (
  neck: readonly [number, number, number],
  extra: (x: number, y: number) => readonly [number, number, number] | undefined = () => undefined,
): RawImage => {
  const data = new Uint8Array(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      const inFace = ((x - 100) / 20) ** 2 + ((y - 50) / 27) ** 2 <= 1 && y < 72;
      const colour = extra(x, y) ?? (inFace ? SKIN : y >= 72 && x >= 70 && x < 130 ? neck : [90, 110, 140]);
      data.set(colour, 3 * (y * SIZE + x));
    }
  return { data, width: SIZE, height: SIZE, channels: 3 };
};
/** The composite's garment layer: solid from y 110 down, between x 60 and 140. */
const garmentLayer = () => {
  const rgba = new Uint8Array(SIZE * SIZE * 4);
  for (let y = 110; y < SIZE; y++) for (let x = 60; x < 140; x++) rgba.set([30, 90, 200, 255], 4 * (y * SIZE + x));
  return { rgba, width: SIZE, height: SIZE };
};
const at = (layer: { rgba: Uint8Array }, x: number, y: number) => Array.from(layer.rgba.subarray(4 * (y * SIZE + x), 4 * (y * SIZE + x) + 4));

const paint = (image: RawImage, front = nothingInFront) => {
  const skin = faceSkin(noHair, image, torso.face);
  if (skin === undefined) throw new Error("no skin read off the face");
  const garment = garmentLayer();
  const box = paintNeckSkin(garment, image, { person, front }, torso, skin);
  return { garment, box };
};

describe("paintNeckSkin", () => {
  it("paints a turtleneck between the chin and the neckline in the face's skin, opaque, and reports where", () => {
    const { garment, box } = paint(photo(KNIT));
    const [r, , b, a] = at(garment, 100, 95);
    expect(a).toBe(255);
    // The face's tone, shaded: warm as skin, not the knit's grey.
    expect(r! - b!).toBeGreaterThan(40);
    expect(r!).toBeLessThanOrEqual(SKIN[0]);
    expect(box).toBeDefined();
    expect(box!.left).toBeLessThanOrEqual(70);
    expect(box!.right).toBeGreaterThanOrEqual(130);
    expect(box!.bottom).toBeLessThanOrEqual(110);
    // The face above it, and the garment, are as they were.
    expect(at(garment, 100, 60)[3]).toBe(0);
    expect(at(garment, 100, 120)).toEqual([30, 90, 200, 255]);
  });

  it("leaves a bare neck alone, in the light or in the chin's shadow", () => {
    expect(paint(photo(SKIN)).box).toBeUndefined();
    expect(paint(photo(SHADOWED_SKIN)).box).toBeUndefined();
  });

  it("leaves what lies in front of the old clothes (hair, a hand) unpainted", () => {
    const inFront = map((x, y) => x >= 70 && x < 85 && y >= 72);
    const { garment } = paint(photo(KNIT), inFront);
    expect(at(garment, 77, 95)[3]).toBe(0);
    expect(at(garment, 110, 95)[3]).toBe(255);
  });

  it("never paints the mouth: white teeth above the chin line stay, though the knit below them is painted", () => {
    const teeth = (x: number, y: number) => (x >= 92 && x < 108 && y >= 64 && y < 68 ? TEETH : undefined);
    const { garment } = paint(photo(KNIT, teeth));
    for (let x = 92; x < 108; x++) for (let y = 64; y < 68; y++) expect(at(garment, x, y)[3]).toBe(0);
    expect(at(garment, 100, 95)[3]).toBe(255);
  });
});
