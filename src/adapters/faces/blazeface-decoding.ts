import { type Face, transformFace } from "../../domain/crop-window.ts";

/**
 * BlazeFace's outputs as faces. The model is fully convolutional: on an input of W×H (multiples
 * of 32) it scores 2 anchors per cell of a 16-pixel grid and 6 per cell of a 32-pixel grid, row by
 * row; each anchor's 16 regressors are the box centre's offset and size, then six landmarks
 * (right eye, left eye, nose, mouth, right ear, left ear) as offsets, all in input pixels.
 */
export interface AnchorGrid {
  readonly stride: number;
  readonly perCell: number;
  readonly scores: Float32Array;
  readonly regressors: Float32Array;
}

export const BLAZEFACE_GRIDS = [
  { stride: 16, perCell: 2 },
  { stride: 32, perCell: 6 },
] as const;

/**
 * The two scales the detector runs at: the shorter side at FINE_SIDE (faces from 3 % of it, about
 * 12 pixels) and the longer side at COARSE_SIDE (faces up to the whole frame; the model was trained
 * on faces of roughly 20 to 190 pixels). 384 rather than 512: the fine run costs about half as
 * much, and the face set's smallest faces (3.6 % of the shorter side) still score 0.81 or more, as
 * at 512; at 320 two of them are lost (test/accuracy/face-crops.int.test.ts).
 */
export const FINE_SIDE = 384;
export const COARSE_SIDE = 256;

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** Faces scoring at least `minScore`, in the input's pixels divided by `scale`. */
export const decodeGrid = (grid: AnchorGrid, inputWidth: number, minScore: number, scale: number): ReadonlyArray<Face> => {
  const columns = inputWidth / grid.stride;
  const faces: Array<Face> = [];
  for (let i = 0; i < grid.scores.length; i++) {
    const score = sigmoid(grid.scores[i]!);
    if (score < minScore) continue;
    const cell = Math.floor(i / grid.perCell);
    const anchorX = ((cell % columns) + 0.5) * grid.stride;
    const anchorY = (Math.floor(cell / columns) + 0.5) * grid.stride;
    const r = grid.regressors.subarray(16 * i, 16 * i + 16);
    const [cx, cy, w, h] = [anchorX + r[0]!, anchorY + r[1]!, r[2]!, r[3]!];
    const face: Face = {
      box: { left: cx - w / 2, top: cy - h / 2, width: w, height: h },
      score,
      eyes: [
        { x: anchorX + r[4]!, y: anchorY + r[5]! },
        { x: anchorX + r[6]!, y: anchorY + r[7]! },
      ],
    };
    faces.push(transformFace(face, 1 / scale));
  }
  return faces;
};

const overlap = (a: Face["box"], b: Face["box"]): number => {
  const w = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
  const h = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.width * a.height + b.width * b.height - inter);
};

/**
 * Greedy non-maximum suppression: the best-scoring face of each cluster stays. Anchors at
 * neighbouring cells and both pyramid levels find the same face; `maxIoU` is low because two
 * real faces overlap little in a photo.
 */
export const suppressOverlaps = (faces: ReadonlyArray<Face>, maxIoU: number): ReadonlyArray<Face> =>
  [...faces]
    .sort((a, b) => b.score - a.score)
    .reduce<ReadonlyArray<Face>>((kept, face) => (kept.some((k) => overlap(k.box, face.box) > maxIoU) ? kept : [...kept, face]), []);
