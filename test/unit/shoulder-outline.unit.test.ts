import { describe, expect, it } from "vitest";
import { outlineShoulders } from "../../src/adapters/tryon/shoulder-outline.ts";
import type { Torso } from "../../src/adapters/tryon/torso.ts";
import { DRAWN_SIZE, drawnMap, drawnTorso } from "../fixtures/tryon/drawn-body.ts";

/**
 * The garment's shoulder corners on the person's own outline, on drawn maps (200×200): a body whose
 * shoulders' top edge and sides are known, joints at (60, 100) and (140, 100), 80 px apart.
 */
const SIZE = { width: DRAWN_SIZE, height: DRAWN_SIZE };
const map = drawnMap;
const noHair = map(() => false);
const torso = drawnTorso;

describe("outlineShoulders", () => {
  it("moves each corner up to the silhouette's top and out towards its side", () => {
    // Square shoulders: the top row 16 px above the joints, the outermost columns 12 px outside them.
    const person = map((x, y) => x >= 48 && x < 153 && y >= 84);
    const [tl, tr, br, bl] = outlineShoulders(torso, { person, hair: noHair }, SIZE).quad;
    expect(tl.y).toBeCloseTo(84, 6);
    expect(tr.y).toBeCloseTo(84, 6);
    // Three quarters of the way out to the side (the sleeve takes the rest).
    expect(tl.x).toBeCloseTo(60 - 0.75 * 12, 6);
    expect(tr.x).toBeCloseTo(140 + 0.75 * 12, 6);
    expect([br, bl]).toEqual([torso.quad[2], torso.quad[3]]);
  });

  it("keeps the proportions' rise where hair lies over the shoulder and hides its outline", () => {
    const person = map((x, y) => x >= 48 && x < 153 && y >= 84);
    const hair = map((x, y) => x < 100 && y < 95);
    const [tl, tr] = outlineShoulders(torso, { person, hair }, SIZE).quad;
    expect(tl.y).toBeCloseTo(torso.quad[0].y, 6);
    expect(tl.x).toBeCloseTo(60 - 0.75 * 12, 6);
    expect(tr.y).toBeCloseTo(84, 6);
  });

  it("keeps the proportions' step where the outline is not seen: an arm raised beside the head", () => {
    // The image-left side goes on upward and outward past any shoulder's bounds.
    const person = map((x, y) => (x >= 48 && x < 153 && y >= 84) || x < 70);
    const [tl] = outlineShoulders(torso, { person, hair: noHair }, SIZE).quad;
    expect(tl).toEqual(torso.quad[0]);
  });

  it("keeps the proportions' step out where the body goes on past the photo's edge", () => {
    // Joints at (10, 100) and (90, 100): the body runs past the image's left edge, 10 px outside the left joint.
    const atEdge: Torso = {
      ...torso,
      quad: [{ x: 2, y: 95.2 }, { x: 98, y: 95.2 }, torso.quad[2], torso.quad[3]],
      shoulders: [
        { x: 10, y: 100 },
        { x: 90, y: 100 },
      ],
      face: { cx: 50, cy: 50, rx: 20, ry: 27 },
    };
    const person = map((x, y) => x < 102 && y >= 84);
    const [tl, tr] = outlineShoulders(atEdge, { person, hair: noHair }, SIZE).quad;
    expect(tl.x).toBeCloseTo(2, 6);
    expect(tl.y).toBeCloseTo(84, 6);
    expect(tr.x).toBeCloseTo(90 + 0.75 * 11, 6);
  });
});
