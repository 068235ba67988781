import { Effect } from "effect";
import sharp, { type Sharp } from "sharp";
import type { TemplateStep } from "../../domain/template-catalog/template.ts";
import type { Raster } from "./raster.ts";

export interface Size {
  readonly width: number;
  readonly height: number;
}

export interface StepContext<E> {
  /** The person mask (one byte per pixel) at the raster's size; fails as the segmenter does. */
  readonly personMask: (raster: Raster) => Effect.Effect<Buffer, E>;
}

/**
 * How one kind of step maps onto libvips. Each step runs as its own pipeline because sharp applies
 * the operations of one pipeline in a fixed order, not the order they were called in.
 */
export interface StepHandler<S extends TemplateStep, E> {
  readonly run: (input: Raster, step: S, context: StepContext<E>) => Effect.Effect<Sharp, E>;
  /**
   * Geometry-only steps can run inside the decoding pipeline, which lets libvips shrink JPEG and
   * WebP while decoding (several times faster for large photos); colour steps never do, so that
   * they always see 8-bit sRGB.
   */
  readonly onDecode?: (decoding: Sharp, step: S, size: Size) => Sharp;
  /**
   * Whether the step moves content relative to the frame (crop, padding, margins): after such a
   * step a mask found on the upload no longer lines up. Scaling alone keeps it aligned.
   */
  readonly reshapes?: (step: S) => boolean;
}

export type StepHandlers<E> = { readonly [Op in TemplateStep["op"]]: StepHandler<Extract<TemplateStep, { op: Op }>, E> };

export const open = (raster: Raster): Sharp => sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: raster.channels } });

const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

/** ITU-R BT.709 luma weights, the same on every row: grey as an RGB image. */
const LUMA = [0.2126, 0.7152, 0.0722] as const;

const pure =
  <S extends TemplateStep>(f: (image: Sharp, step: S, input: Raster) => Sharp) =>
  (input: Raster, step: S) =>
    Effect.sync(() => f(open(input), step, input));

const svg = (width: number, height: number, body: string): Buffer =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`);

/** White RGBA whose alpha is the mask: composited with dest-in it multiplies the image's alpha by the mask. */
const alphaLayer = (mask: Buffer, width: number, height: number) =>
  Effect.promise(() =>
    sharp({ create: { width, height, channels: 3, background: "#ffffff" } })
      .joinChannel(mask, { raw: { width, height, channels: 1 } })
      .raw()
      .toBuffer(),
  );

const withMask = (input: Raster, mask: Buffer) =>
  Effect.map(alphaLayer(mask, input.width, input.height), (layer) =>
    open(input)
      .ensureAlpha()
      .composite([{ input: layer, raw: { width: input.width, height: input.height, channels: 4 }, blend: "dest-in" }]),
  );

const toBuffer = (image: Sharp) => Effect.promise(() => image.raw().toBuffer({ resolveWithObject: true }));

const fromBuffer = ({ data, info }: Effect.Success<ReturnType<typeof toBuffer>>): Sharp =>
  sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });

/**
 * Runs an operation that reads a `window`-pixel neighbourhood. libvips refuses a window larger than
 * the image ("window too large"), so a smaller image is first extended by repeating its edge pixels
 * to the window's size and cropped back after: a 1×1 image comes out (nearly) as it went in, where
 * shrinking the window instead would turn it white. Three pipelines, because sharp would crop first.
 */
const neighbourhood =
  <S extends TemplateStep>(window: (step: S) => number, apply: (image: Sharp, step: S) => Sharp) =>
  (input: Raster, step: S) =>
    Effect.gen(function* () {
      const padX = Math.max(0, window(step) - input.width);
      const padY = Math.max(0, window(step) - input.height);
      if (padX === 0 && padY === 0) return apply(open(input), step);
      const [left, top] = [Math.floor(padX / 2), Math.floor(padY / 2)];
      const padded = yield* toBuffer(open(input).extend({ left, top, right: padX - left, bottom: padY - top, extendWith: "copy" }));
      const done = yield* toBuffer(apply(fromBuffer(padded), step));
      return fromBuffer(done).extract({ left, top, width: input.width, height: input.height });
    });

/** How many times the box's pixels a cover resize may scale an image to before it crops. */
const COVER_OVERSHOOT = 8;

/**
 * A cover resize scales the whole image to cover the box, then crops: for a shape far from the box's
 * (a 1×40 strip to a 4:1 banner) that copy is huge (100 megapixels: seconds; a 1×400 strip took a
 * minute). Past COVER_OVERSHOOT times the box, the region of the box's shape is cut from the
 * image's centre first; ordinary photos (a 3:1 panorama to 9:16 is 5.3) keep the attention crop.
 */
export const coverPreCrop = (step: Size, size: Size): (Size & { readonly left: number; readonly top: number }) | undefined => {
  const scale = Math.max(step.width / size.width, step.height / size.height);
  if (size.width * scale * size.height * scale <= COVER_OVERSHOOT * step.width * step.height) return undefined;
  const ratio = step.width / step.height;
  const width = Math.min(size.width, Math.max(1, Math.round(size.height * ratio)));
  const height = Math.min(size.height, Math.max(1, Math.round(size.width / ratio)));
  return { left: Math.floor((size.width - width) / 2), top: Math.floor((size.height - height) / 2), width, height };
};

export const stepHandlers = <E>(): StepHandlers<E> => {
  const resize = (image: Sharp, step: Extract<TemplateStep, { op: "resize" }>, size: Size) => {
    const region = step.fit === "cover" ? coverPreCrop(step, size) : undefined;
    // Called before resize, sharp's extract runs before it (after EXIF orientation).
    return (region ? image.extract(region) : image).resize({
      width: step.width,
      height: step.height,
      fit: step.fit,
      position: step.position === "centre" ? "centre" : sharp.strategy.attention,
      background: step.background ?? TRANSPARENT,
      withoutEnlargement: step.enlarge === false,
    });
  };
  return {
    resize: { run: pure(resize), onDecode: resize, reshapes: (step) => step.fit !== "inside" },
    grayscale: { run: pure((image) => image.recomb([[...LUMA], [...LUMA], [...LUMA]])) },
    recomb: { run: pure((image, step) => image.recomb([[...step.matrix[0]], [...step.matrix[1]], [...step.matrix[2]]])) },
    modulate: {
      run: pure((image, step) =>
        image.modulate({
          ...(step.brightness === undefined ? {} : { brightness: step.brightness }),
          ...(step.saturation === undefined ? {} : { saturation: step.saturation }),
          ...(step.hue === undefined ? {} : { hue: step.hue }),
        }),
      ),
    },
    linear: { run: pure((image, step) => image.linear(step.multiply, step.add)) },
    normalise: { run: pure((image, step) => image.normalise({ lower: step.lower, upper: step.upper })) },
    clahe: {
      run: neighbourhood(
        (step) => step.tile,
        (image, step) => image.clahe({ width: step.tile, height: step.tile, maxSlope: step.maxSlope }),
      ),
    },
    sharpen: { run: pure((image, step) => image.sharpen({ sigma: step.sigma })) },
    median: {
      run: neighbourhood(
        (step) => step.size,
        (image, step) => image.median(step.size),
      ),
    },
    blur: { run: pure((image, step) => image.blur(step.sigma)) },
    vignette: {
      run: pure((image, step, { width, height }) =>
        image.composite([
          {
            input: svg(
              width,
              height,
              `<defs><radialGradient id="v" cx="50%" cy="50%" r="71%"><stop offset="0.45" stop-color="#000" stop-opacity="0"/>` +
                `<stop offset="1" stop-color="#000" stop-opacity="${step.strength}"/></radialGradient></defs>` +
                `<rect width="100%" height="100%" fill="url(#v)"/>`,
            ),
            // atop keeps the image's own transparency (e.g. a circle crop before the vignette).
            blend: "atop",
          },
        ]),
      ),
    },
    roundCorners: {
      run: pure((image, step, { width, height }) => {
        const radius = step.radius * Math.min(width, height);
        return image
          .ensureAlpha()
          .composite([
            { input: svg(width, height, `<rect width="${width}" height="${height}" rx="${radius}" ry="${radius}" fill="#fff"/>`), blend: "dest-in" },
          ]);
      }),
    },
    extend: {
      run: pure((image, step) => image.extend({ top: step.top, right: step.right, bottom: step.bottom, left: step.left, background: step.colour })),
      reshapes: () => true,
    },
    dropShadow: {
      reshapes: () => true,
      run: (input, step) =>
        Effect.gen(function* () {
          const { margin, offset } = step;
          const width = input.width + 2 * margin;
          const height = input.height + 2 * margin;
          const subject = yield* toBuffer(open(input).ensureAlpha());
          // The shadow is the subject's own silhouette in black, shifted, then blurred in a
          // pipeline of its own (sharp would blur before extending, cutting the shadow off).
          const silhouette = yield* toBuffer(
            sharp(subject.data, { raw: { width: input.width, height: input.height, channels: 4 } })
              .recomb([
                [0, 0, 0, 0],
                [0, 0, 0, 0],
                [0, 0, 0, 0],
                [0, 0, 0, step.opacity],
              ])
              .extend({ top: margin + offset, left: margin + offset, bottom: margin - offset, right: margin - offset, background: TRANSPARENT }),
          );
          return sharp(silhouette.data, { raw: { width, height, channels: 4 } })
            .blur(step.blur)
            .composite([{ input: subject.data, raw: { width: input.width, height: input.height, channels: 4 }, left: margin, top: margin }]);
        }),
    },
    flatten: { run: pure((image, step) => image.flatten({ background: step.colour })) },
    cutout: {
      run: (input, _step, context) => Effect.flatMap(context.personMask(input), (mask) => withMask(input, mask)),
    },
    blurBackground: {
      run: (input, step, context) =>
        Effect.gen(function* () {
          const mask = yield* context.personMask(input);
          const person = yield* toBuffer(yield* withMask(input, mask));
          return open(input)
            .blur(step.sigma)
            .composite([{ input: person.data, raw: { width: input.width, height: input.height, channels: 4 } }]);
        }),
    },
  };
};
