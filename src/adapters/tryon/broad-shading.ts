import type { TryOnSettings } from "../../domain/tryon-settings.ts";

/**
 * How the photo's light reaches the garment (issue 29): only its broad shading, the light and
 * folds at the scale of the body, so the garment stays opaque: the old clothes' lapels, stripes,
 * prints and the hair's strands never show through it. composite-graph.ts averages the person's
 * luminance under the garment in BLOCK × BLOCK blocks, blurs the blocks with a Gaussian whose σ
 * is a share of the shoulder width (so the same photo at another size, or a person nearer the
 * camera, is shaded alike), and lights the garment by that, relative to its mean and clamped.
 *
 * Per level: how strongly the shading is applied, and the blur's σ as a share of the shoulders.
 * "draft" is the garment's own colours, unlit; "high" follows folds half the size of "standard"'s.
 * The garment's own colours and texture are kept whole at every level.
 */
export const SHADING_BLOCK = 8;

export const BROAD_SHADING: { readonly [K in TryOnSettings["realismLevel"]]: { readonly strength: number; readonly sigmaShare: number } } = {
  draft: { strength: 0, sigmaShare: 0.12 },
  standard: { strength: 0.7, sigmaShare: 0.12 },
  high: { strength: 1, sigmaShare: 0.06 },
};

/** The blur's σ in working pixels is kept within these, whatever the shoulders measure. */
const SIGMA_MIN = 8;
const SIGMA_MAX = 96;

/** The normalised 1-D Gaussian (radius 3σ) at the blocks' scale, for a person of this shoulder width. */
export const shadingKernel = (realism: TryOnSettings["realismLevel"], shoulderWidth: number): Float32Array => {
  const sigmaPixels = Math.min(SIGMA_MAX, Math.max(SIGMA_MIN, BROAD_SHADING[realism].sigmaShare * shoulderWidth));
  const sigma = sigmaPixels / SHADING_BLOCK;
  const radius = Math.ceil(3 * sigma);
  const taps = Float32Array.from({ length: 2 * radius + 1 }, (_, i) => Math.exp(-((i - radius) ** 2) / (2 * sigma * sigma)));
  const total = taps.reduce((s, v) => s + v, 0);
  return taps.map((v) => v / total);
};
