import { describe, expect, it } from "vitest";
import type { RawImage } from "../../src/adapters/image/raw-decoding.ts";
import { faceSkin } from "../../src/adapters/tryon/face-skin.ts";
import { handsInFront } from "../../src/adapters/tryon/hands-in-front.ts";
import { DRAWN_SIZE, drawnMap, drawnTorso } from "../fixtures/tryon/drawn-body.ts";

/**
 * A hand in front of the torso on a drawn 200×200 scene (drawn-body.ts: shoulders 80 px apart, the
 * face centred at (100, 50)): a knit top, the wrist seen at (80, 178) with a watch's dark band across
 * it, the hand above the band and the forearm below it, and a skin-coloured speck of the top's
 * pattern 25 px to the side, within the hand's reach but apart from it.
 */
const SIZE = DRAWN_SIZE;
const SKIN = [220, 170, 150] as const;
const KNIT = [182, 182, 178] as const;
const WATCH = [40, 40, 60] as const;
const WRIST = { x: 80, y: 178 };
const inFace = (x: number, y: number) => ((x - 100) / 20) ** 2 + ((y - 50) / 27) ** 2 <= 1 && y < 72;
const inHand = (x: number, y: number) => Math.hypot(x - 80, y - 165) <= 11;
const inForearm = (x: number, y: number) => x >= 73 && x <= 87 && y >= 180;
const inWatch = (x: number, y: number) => x >= 72 && x <= 88 && y >= 176 && y < 180;
const inSpeck = (x: number, y: number) => Math.hypot(x - 105, y - 172) <= 3;

const image: RawImage = (() => {
  const data = new Uint8Array(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      const colour = inWatch(x, y) ? WATCH : inFace(x, y) || inHand(x, y) || inForearm(x, y) || inSpeck(x, y) ? SKIN : KNIT;
      data.set(colour, 3 * (y * SIZE + x));
    }
  return { data, width: SIZE, height: SIZE, channels: 3 };
})();
const nothing = drawnMap(() => false);

describe("handsInFront", () => {
  const skin = faceSkin(nothing, image, drawnTorso.face);
  const front = handsInFront(nothing, image, [{ name: "left_wrist", x: WRIST.x, y: WRIST.y, score: 0.5 }], drawnTorso, skin?.range);
  const at = (x: number, y: number) => front.values[y * SIZE + x]!;

  it("keeps the hand and the forearm on both sides of a watch's band", () => {
    expect(skin).toBeDefined();
    expect(at(80, 162)).toBeGreaterThanOrEqual(0.5);
    expect(at(80, 190)).toBeGreaterThanOrEqual(0.5);
  });

  it("leaves a skin-coloured speck of the top's pattern apart from the hand behind the garment", () => {
    expect(at(105, 172)).toBe(0);
    expect(at(120, 165)).toBe(0);
  });
});
