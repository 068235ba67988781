import { describe, expect, it } from "vitest";
import type { RawImage } from "../../src/adapters/image/raw-decoding.ts";
import { paintArmSkin } from "../../src/adapters/tryon/arm-skin.ts";
import type { Arm } from "../../src/adapters/tryon/arms.ts";
import { faceSkin } from "../../src/adapters/tryon/face-skin.ts";
import type { Point } from "../../src/ports/engines/tryon-engine.ts";
import { DRAWN_SIZE, drawnMap, drawnTorso } from "../fixtures/tryon/drawn-body.ts";

/**
 * The old sleeve below the new garment's painted as skin, on a drawn 200×200 scene: a face (skin,
 * 220/170/150) centred at (100, 50); the image-left arm hanging from the shoulder joint (60, 100)
 * to the elbow (48, 150) and the wrist (44, 192), drawn 9 px thick around that line; the new
 * garment solid over the torso (x 60-140) and, as a short sleeve, over the arm down to y 125.
 * Below that the photo shows a grey knit sleeve, or the bare arm; a blue backdrop around.
 */
const SIZE = DRAWN_SIZE;
const SKIN = [220, 170, 150] as const;
const KNIT = [182, 182, 178] as const;
const INK = [40, 40, 60] as const;
const BACKDROP = [90, 110, 140] as const;
const torso = drawnTorso;
const SHOULDER = { x: 60, y: 100 };
const ELBOW = { x: 48, y: 150 };
const WRIST = { x: 44, y: 192 };
const ARM_RADIUS = 9;
const HEM = 125;

const distanceToSegment = (p: Point, a: Point, b: Point) => {
  const [abx, aby] = [b.x - a.x, b.y - a.y];
  const t = Math.min(1, Math.max(0, ((p.x - a.x) * abx + (p.y - a.y) * aby) / (abx * abx + aby * aby)));
  return Math.hypot(p.x - a.x - t * abx, p.y - a.y - t * aby);
};
const onArm = (x: number, y: number) =>
  Math.min(distanceToSegment({ x, y }, SHOULDER, ELBOW), distanceToSegment({ x, y }, ELBOW, WRIST)) <= ARM_RADIUS && y <= WRIST.y;
const inFace = (x: number, y: number) => ((x - 100) / 20) ** 2 + ((y - 50) / 27) ** 2 <= 1;
const person = drawnMap((x, y) => inFace(x, y) || onArm(x, y) || (x >= 60 && x < 140 && y >= 95));
const nothing = drawnMap(() => false);

const arm = (elbow: Point | undefined, wrist: Point | undefined): Arm => {
  const to = elbow ?? { x: 55, y: 150 };
  const length = Math.hypot(to.x - SHOULDER.x, to.y - SHOULDER.y);
  const upper = { x: (to.x - SHOULDER.x) / length, y: (to.y - SHOULDER.y) / length };
  return { side: "left", shoulder: SHOULDER, upper, elbow, wrist, outward: { x: -upper.y, y: upper.x } };
};

/** The photo: the face, the arm below the hem in `sleeve(x, y)`, the torso in knit, the backdrop elsewhere. */
const photo = (sleeve: (x: number, y: number) => readonly [number, number, number]): RawImage => {
  const data = new Uint8Array(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      const colour = inFace(x, y) && y < 72 ? SKIN : onArm(x, y) ? sleeve(x, y) : x >= 60 && x < 140 && y >= 95 ? KNIT : BACKDROP;
      data.set(colour, 3 * (y * SIZE + x));
    }
  return { data, width: SIZE, height: SIZE, channels: 3 };
};
/** The composite's garment layer: solid over the torso, and over the arm down to the hem. */
const GARMENT = [30, 90, 200, 255] as const;
const garmentLayer = () => {
  const rgba = new Uint8Array(SIZE * SIZE * 4);
  for (let y = 95; y < SIZE; y++) for (let x = 0; x < SIZE; x++) if ((x >= 60 && x < 140) || (y < HEM && onArm(x, y))) rgba.set(GARMENT, 4 * (y * SIZE + x));
  return { rgba, width: SIZE, height: SIZE };
};
const at = (layer: { rgba: Uint8Array }, x: number, y: number) => Array.from(layer.rgba.subarray(4 * (y * SIZE + x), 4 * (y * SIZE + x) + 4));

const paint = (image: RawImage, options: { elbow?: Point | undefined; wrist?: Point | undefined; hair?: typeof nothing; front?: typeof nothing } = {}) => {
  const skin = faceSkin(nothing, image, torso.face);
  if (skin === undefined) throw new Error("no skin read off the face");
  const garment = garmentLayer();
  const arms = [arm("elbow" in options ? options.elbow : ELBOW, "wrist" in options ? options.wrist : WRIST)];
  const box = paintArmSkin(garment, image, { person, hair: options.hair ?? nothing, front: options.front ?? nothing }, arms, torso, skin);
  return { garment, box };
};
const knitSleeve = photo(() => KNIT);

describe("paintArmSkin", () => {
  it("paints a long sleeve below the new short one in the face's skin, down to the wrist, and reports where", () => {
    const { garment, box } = paint(knitSleeve);
    for (const [x, y] of [
      [51, 140],
      [47, 160],
      [45, 185],
    ] as const) {
      const [r, , b, a] = at(garment, x, y);
      expect(a).toBe(255);
      expect(r! - b!).toBeGreaterThan(40);
      expect(r!).toBeLessThanOrEqual(SKIN[0]);
    }
    expect(box).toBeDefined();
    expect(box!.top).toBeGreaterThanOrEqual(HEM - 2);
    expect(box!.bottom).toBeLessThanOrEqual(WRIST.y + 1);
    // The new sleeve, the torso's garment and the backdrop beside the arm are as they were.
    expect(at(garment, 55, 115)).toEqual([...GARMENT]);
    expect(at(garment, 100, 160)).toEqual([...GARMENT]);
    expect(at(garment, 30, 160)[3]).toBe(0);
  });

  it("leaves a bare arm alone, with a tattoo and a bracelet on it", () => {
    expect(paint(photo(() => SKIN)).box).toBeUndefined();
    const marked = photo((x, y) => ((x - 47) ** 2 + (y - 158) ** 2 <= 9 || (y >= 186 && y < 189) ? INK : SKIN));
    expect(paint(marked).box).toBeUndefined();
  });

  it("paints a sleeve rolled up to the elbow only where it is, and never hair or what lies in front", () => {
    const rolled = photo((_, y) => (y < ELBOW.y + 4 ? KNIT : SKIN));
    const { garment, box } = paint(rolled);
    expect(at(garment, 51, 140)[3]).toBe(255);
    expect(at(garment, 46, 175)[3]).toBe(0);
    expect(box!.bottom).toBeLessThanOrEqual(ELBOW.y + 6);

    const hair = drawnMap((x, y) => y >= 135 && y < 145 && x < 70);
    const front = drawnMap((x, y) => y >= 165 && y < 175 && x < 70);
    const covered = paint(knitSleeve, { hair, front }).garment;
    expect(at(covered, 50, 140)[3]).toBe(0);
    expect(at(covered, 46, 170)[3]).toBe(0);
    expect(at(covered, 47, 160)[3]).toBe(255);
  });

  it("leaves an arm whose elbow is not seen as it is; follows one whose wrist lies beyond the photo's edge", () => {
    expect(paint(knitSleeve, { elbow: undefined, wrist: undefined }).box).toBeUndefined();
    // The forearm continues the upper arm's line out of the photo: painted to the edge.
    const beyondEdge = paint(knitSleeve, { elbow: { x: 48, y: 170 }, wrist: undefined });
    expect(beyondEdge.box!.bottom).toBeGreaterThan(185);
    // A wrist not seen inside the photo: only the upper arm.
    const short = paint(knitSleeve, { elbow: { x: 53, y: 130 }, wrist: undefined });
    expect(short.box!.bottom).toBeLessThan(150);
  });
});
