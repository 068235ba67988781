import { describe, expect, it } from "vitest";
import { BROAD_SHADING, SHADING_BLOCK, shadingKernel } from "../../src/adapters/tryon/broad-shading.ts";

/** Within 2 %: cut at 3σ, a Gaussian's spread is about 1 % below its σ. */
const near = (actual: number, expected: number) => expect(Math.abs(actual / expected - 1)).toBeLessThan(0.02);

/** The spread of a kernel, in taps: its standard deviation. */
const spread = (k: Float32Array) => {
  const centre = (k.length - 1) / 2;
  return Math.sqrt(k.reduce((s, v, i) => s + v * (i - centre) ** 2, 0));
};

describe("broad shading's blur (issue 29)", () => {
  it("is a normalised, symmetric Gaussian whose σ is its share of the shoulders, in blocks", () => {
    const k = shadingKernel("standard", 400);
    expect(k.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 5);
    for (let i = 0; i < k.length; i++) expect(k[i]).toBeCloseTo(k[k.length - 1 - i]!, 6);
    near(spread(k), (BROAD_SHADING.standard.sigmaShare * 400) / SHADING_BLOCK);
  });

  it("follows smaller folds at high than at standard, and scales with the person", () => {
    expect(spread(shadingKernel("high", 400))).toBeLessThan(0.6 * spread(shadingKernel("standard", 400)));
    expect(spread(shadingKernel("standard", 600))).toBeGreaterThan(1.4 * spread(shadingKernel("standard", 400)));
  });

  it("is kept between 8 and 96 working pixels whatever the shoulders measure", () => {
    near(spread(shadingKernel("high", 10)), 8 / SHADING_BLOCK);
    near(spread(shadingKernel("standard", 5000)), 96 / SHADING_BLOCK);
  });
});
