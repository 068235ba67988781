import type { Template } from "./template-catalog/template.ts";

/**
 * Where a crop-to-fill takes its window: pure geometry over the image's size, the box's shape and
 * the faces found in it. The window is always the largest of the box's shape inside the image
 * (a cover crop scales it to the box); only its position is chosen here.
 */
export interface Size {
  readonly width: number;
  readonly height: number;
}

export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

/** A face as a detector reports it: its box (brows to chin), its score, and its eyes when known. */
export interface Face {
  readonly box: Box;
  readonly score: number;
  readonly eyes?: readonly [Point, Point];
}

/** A focal point as fractions (0..1) of the image's width and height. */
export type FocalPoint = Point;

/**
 * auto: faces, else the most salient region (libvips attention); face: faces, else the centre;
 * attention and centre: those only, no detection; a point: the window that holds it, centred on
 * it as far as the image allows.
 */
export type Focus = "auto" | "face" | "attention" | "centre" | FocalPoint;

export const FOCUS_NAMES = ["auto", "face", "attention", "centre"] as const;

export type AppliedFocus = "face" | "attention" | "centre" | "point";

export type CropPlacement = { readonly by: "face" | "centre" | "point"; readonly window: Box } | { readonly by: "attention" };

/** A face's coordinates times `k`, then moved by (dx, dy): from one copy of an image to another. */
export const transformFace = (face: Face, k: number, dx = 0, dy = 0): Face => ({
  box: { left: face.box.left * k + dx, top: face.box.top * k + dy, width: face.box.width * k, height: face.box.height * k },
  score: face.score,
  ...(face.eyes
    ? {
        eyes: [
          { x: face.eyes[0].x * k + dx, y: face.eyes[0].y * k + dy },
          { x: face.eyes[1].x * k + dx, y: face.eyes[1].y * k + dy },
        ] as const,
      }
    : {}),
});

export const needsFaces = (focus: Focus): boolean => focus === "auto" || focus === "face";

/** The largest window of the box's shape inside the image, in whole pixels. */
export const coverWindowSize = (image: Size, box: Size): Size => {
  const ratio = box.width / box.height;
  if (image.width / image.height > ratio) return { width: Math.max(1, Math.min(image.width, Math.round(image.height * ratio))), height: image.height };
  return { width: image.width, height: Math.max(1, Math.min(image.height, Math.round(image.width / ratio))) };
};

/**
 * Regions around a face box (brows to chin): the head (hair above, ears beside, chin below), which
 * a crop keeps when it can, and the face (forehead to chin), which it keeps when the head cannot fit.
 */
const around =
  (above: number, beside: number, below: number) =>
  ({ box }: Face): Box => ({
    left: box.left - beside * box.width,
    top: box.top - above * box.height,
    width: box.width * (1 + 2 * beside),
    height: box.height * (1 + above + below),
  });
const head = around(0.5, 0.2, 0.15);
const forehead = around(0.3, 0.05, 0.05);

const union = (boxes: ReadonlyArray<Box>): Box => {
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  const right = Math.max(...boxes.map((b) => b.left + b.width));
  const bottom = Math.max(...boxes.map((b) => b.top + b.height));
  return { left, top, width: right - left, height: bottom - top };
};

const fits = (box: Box, window: Size): boolean => box.width <= window.width && box.height <= window.height;

const clamp = (value: number, low: number, high: number): number => Math.min(Math.max(value, low), high);

/**
 * The start of a window of `length` on an axis of `extent` (whole pixels): `preferred` moved as
 * little as needed to hold the part of `[need.start, need.end]` inside the image (when it can),
 * and to stay inside the image.
 */
const place = (preferred: number, length: number, extent: number, need: { readonly start: number; readonly end: number }): number => {
  const low = Math.max(0, Math.ceil(Math.min(extent, need.end) - length));
  const high = Math.min(extent - length, Math.floor(Math.max(0, need.start)));
  return low <= high ? clamp(Math.round(preferred), low, high) : clamp(Math.round(preferred), 0, extent - length);
};

/**
 * The faces to keep: all of them when they fit together, else the largest with as many of the
 * others (largest first) as still fit beside it; each by its head when the heads fit, else by its
 * face box alone.
 */
const keptFaces = (faces: ReadonlyArray<Face>, window: Size, region: (face: Face) => Box): ReadonlyArray<Face> => {
  if (fits(union(faces.map(region)), window)) return faces;
  const [largest, ...others] = [...faces].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  if (largest === undefined) return [];
  return others.reduce<ReadonlyArray<Face>>((group, face) => (fits(union([...group, face].map(region)), window) ? [...group, face] : group), [largest]);
};

const eyeLine = (face: Face): number => (face.eyes ? (face.eyes[0].y + face.eyes[1].y) / 2 : face.box.top + 0.38 * face.box.height);

/** The faces to keep and the region of each that must be inside the window, most generous first. */
const chooseGroup = (faces: ReadonlyArray<Face>, window: Size): { readonly group: ReadonlyArray<Face>; readonly region: (face: Face) => Box } => {
  for (const region of [head, forehead]) if (fits(union(faces.map(region)), window)) return { group: faces, region };
  const byHead = keptFaces(faces, window, head);
  if (fits(union(byHead.map(head)), window)) return { group: byHead, region: head };
  return { group: keptFaces(faces, window, forehead), region: forehead };
};

const faceWindow = (image: Size, window: Size, faces: ReadonlyArray<Face>): Box => {
  const { group, region } = chooseGroup(faces, window);
  const need = union(group.map(region));
  const largest = group.reduce((a, b) => (b.box.width * b.box.height > a.box.width * a.box.height ? b : a));
  // Eyes on the upper third in portrait windows; a little above the middle in square and wide ones.
  const eyesAt = window.height > window.width ? 1 / 3 : 0.4;
  return {
    left: place(need.left + need.width / 2 - window.width / 2, window.width, image.width, { start: need.left, end: need.left + need.width }),
    top: place(eyeLine(largest) - eyesAt * window.height, window.height, image.height, { start: need.top, end: need.top + need.height }),
    ...window,
  };
};

const centred = (image: Size, window: Size, at: Point): Box => ({
  left: place(at.x - window.width / 2, window.width, image.width, { start: at.x, end: at.x }),
  top: place(at.y - window.height / 2, window.height, image.height, { start: at.y, end: at.y }),
  ...window,
});

/** Where the window of a crop to `box` goes in an image of `image`, for a focus and the faces found. */
export const placeCropWindow = (image: Size, box: Size, focus: Focus, faces: ReadonlyArray<Face>): CropPlacement => {
  const window = coverWindowSize(image, box);
  const middle = { x: image.width / 2, y: image.height / 2 };
  if (typeof focus === "object") return { by: "point", window: centred(image, window, { x: focus.x * image.width, y: focus.y * image.height }) };
  if (needsFaces(focus) && faces.length > 0) return { by: "face", window: faceWindow(image, window, faces) };
  if (focus === "auto" || focus === "attention") return { by: "attention" };
  return { by: "centre", window: centred(image, window, middle) };
};

/**
 * Whether a template crops to fill, and the focus its crop takes when the request names none
 * (crop-window.ts): null for templates that keep the whole image.
 */
export const templateCrop = (template: Template): { readonly focus: "auto" | "attention" | "centre" } | null => {
  const cover = template.steps.find((step) => step.op === "resize" && step.fit === "cover");
  return cover?.op === "resize" ? { focus: cover.position ?? "auto" } : null;
};
