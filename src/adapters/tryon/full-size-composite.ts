import sharp, { type OverlayOptions, type Region } from "sharp";
import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import type { RenderedImage } from "../../ports/engines/image.ts";

/**
 * The full-size composite, done by libvips: the photo as sent (never decoded whole into
 * JavaScript), with the working-resolution layers of composite-graph.ts scaled up and laid over
 * it, then the lighting's tone curve. Every layer is smooth at the working resolution (the
 * garment was warped from a ≤ 640 px product shot, the person mask comes from a 256 px model), so
 * scaling them up loses nothing the photo had; the person keeps every pixel of detail.
 *
 * Memory: libvips streams the photo from decoder to encoder in strips (the JPEG encoder's Huffman
 * optimisation is off, since it holds every coefficient of the image: ~470 MB at 40 MP for 9 %
 * fewer bytes). What is held whole are the scaled layers, as raw bytes at full size: the
 * garment's box (4 bytes a pixel of the box), and over the whole frame 4 bytes a pixel for a
 * replaced or a transparent background and 1 for a vignette: at 40 MP at most ~0.25 GB.
 */
export interface WorkingLayers {
  readonly width: number;
  readonly height: number;
  /** Interleaved bytes at width × height (composite-graph.ts's outputs). */
  readonly garment: Uint8Array;
  readonly backdrop: Uint8Array;
  readonly foreground: Uint8Array;
  readonly vignette: Uint8Array;
  /** Where the garment can be: left, top inclusive; right, bottom exclusive (working pixels). */
  readonly box: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number };
}

const JPEG_QUALITY = 95;

/** contrast; lift; gain R, G, B; vignette strength. */
export const LIGHTING: { readonly [K in TryOnSettings["lightingStyle"]]: readonly [number, number, number, number, number, number] } = {
  original: [1, 0, 1, 1, 1, 0],
  studio: [0.9, 0.07, 1.02, 1.02, 1.02, 0],
  warm: [1, 0.01, 1.08, 1.0, 0.84, 0],
  cool: [1, 0.01, 0.86, 0.98, 1.1, 0],
  dramatic: [1.4, -0.04, 1, 1, 1, 0.5],
};

/** Where a displayed image is that size after its EXIF orientation. */
export const displayedSize = async (bytes: Uint8Array): Promise<{ width: number; height: number }> => {
  const { autoOrient } = await sharp(bytes).metadata();
  return { width: autoOrient.width, height: autoOrient.height };
};

export const compositeFullSize = async (
  photo: Uint8Array,
  full: { readonly width: number; readonly height: number },
  layers: WorkingLayers,
  settings: TryOnSettings,
): Promise<RenderedImage> => {
  const { width, height } = full;
  const sx = width / layers.width;
  const sy = height / layers.height;
  const mirrored = settings.poseStyle === "mirrored";
  const transparent = settings.backgroundStyle === "transparent";
  const [contrast, lift, gainR, gainG, gainB, vignette] = LIGHTING[settings.lightingStyle];

  // A working layer (or a part of it), scaled to `to` full-size pixels; mirrored like the photo,
  // since sharp flops the photo before it lays anything over it.
  const scaled = async (data: Uint8Array, channels: 1 | 4, to: { width: number; height: number }, part?: Region) => {
    const source = sharp(data, { raw: { width: layers.width, height: layers.height, channels } });
    const cropped = part === undefined ? source : source.extract(part);
    const resized = cropped.resize(to.width, to.height, { fit: "fill", kernel: "linear" });
    const oriented = mirrored ? resized.flop() : resized;
    // sharp widens single-channel raw input to sRGB unless told to keep one band.
    const out = await (channels === 1 ? oriented.extractChannel(0) : oriented).raw().toBuffer();
    return { input: out, raw: { width: to.width, height: to.height, channels } } satisfies OverlayOptions;
  };

  const overlays: Array<OverlayOptions> = [];
  const { box } = layers;
  if (box.right > box.left && box.bottom > box.top) {
    const left = Math.floor(box.left * sx);
    const top = Math.floor(box.top * sy);
    const right = Math.min(width, Math.ceil(box.right * sx));
    const bottom = Math.min(height, Math.ceil(box.bottom * sy));
    const part = { left: box.left, top: box.top, width: box.right - box.left, height: box.bottom - box.top };
    const garment = await scaled(layers.garment, 4, { width: right - left, height: bottom - top }, part);
    overlays.push({ ...garment, top, left: mirrored ? width - right : left });
  }
  if (settings.backgroundStyle !== "original" && !transparent) overlays.push(await scaled(layers.backdrop, 4, full));
  if (vignette !== 0) {
    const factor = await scaled(layers.vignette, 1, full);
    overlays.push({ ...factor, blend: "multiply" });
  }
  if (transparent) {
    // The foreground becomes the alpha: "dest-in" keeps the photo where the overlay is opaque.
    const alpha = new Uint8Array(4 * layers.width * layers.height);
    for (let i = 0; i < layers.foreground.length; i++) alpha[4 * i + 3] = layers.foreground[i]!;
    overlays.push({ ...(await scaled(alpha, 4, full)), blend: "dest-in" });
  }

  // sharp drops alpha after compositing, so the photo's own alpha (if any) goes at the end.
  const photoPipeline = sharp(photo, { failOn: "error" }).rotate();
  const oriented = mirrored ? photoPipeline.flop() : photoPipeline;
  const composed = overlays.length > 0 ? oriented.composite(overlays) : oriented;
  // The tone curve, which sharp applies after compositing: ((v − ½)·contrast + ½ + lift)·gain.
  const gains = [gainR, gainG, gainB];
  const lit =
    contrast === 1 && lift === 0 && gains.every((gain) => gain === 1)
      ? composed
      : composed.linear(
          gains.map((gain) => contrast * gain),
          gains.map((gain) => 255 * gain * (0.5 - 0.5 * contrast + lift)),
        );
  const bytes = transparent
    ? await lit.png().toBuffer()
    : await lit.removeAlpha().jpeg({ quality: JPEG_QUALITY, chromaSubsampling: "4:4:4", optimiseCoding: false }).toBuffer();
  return {
    bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    format: transparent ? "png" : "jpeg",
    contentType: transparent ? "image/png" : "image/jpeg",
    width,
    height,
  };
};
