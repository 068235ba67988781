import { describe, expect, it } from "vitest";
import { sampler } from "../../src/adapters/tryon/skin-paint.ts";

/** A 4×4 map read at 12×12 (3 working pixels a cell, as the silhouette's 256 cells are on a 768 px photo). */
const map = (value: (x: number, y: number) => number) => ({
  width: 4,
  height: 4,
  values: Float32Array.from({ length: 16 }, (_, i) => value(i % 4, Math.floor(i / 4))),
});

describe("sampler", () => {
  it("reads a cell's own value at its centre, and the map's edge cells out to the photo's edge", () => {
    const read = sampler(
      map((x, y) => x + 10 * y),
      12,
      12,
    );
    // Working pixel 4 has its centre (4.5 px) at the centre of cell 1 (3-6 px).
    expect(read(4, 4)).toBeCloseTo(11);
    expect(read(0, 0)).toBeCloseTo(0);
    expect(read(11, 11)).toBeCloseTo(33);
  });

  it("grades a step between two cells over the pixels between their centres, instead of jumping at the cell's border", () => {
    const read = sampler(
      map((x) => (x < 2 ? 0 : 1)),
      12,
      12,
    );
    const row = Array.from({ length: 12 }, (_, x) => read(x, 6));
    // Cell 1's centre (pixel 4) is 0, cell 2's (pixel 7) is 1; the two pixels between them are graded.
    expect(row[4]).toBeCloseTo(0);
    expect(row[5]).toBeCloseTo(1 / 3);
    expect(row[6]).toBeCloseTo(2 / 3);
    expect(row[7]).toBeCloseTo(1);
  });
});
