import { Effect, Layer } from "effect";
import sharp, { type Sharp } from "sharp";
import type { OutputFormat, TemplateOutput, TemplateStep } from "../../domain/template-catalog.ts";
import { EngineTimeout, InvalidImage } from "../../ports/errors.ts";
import type { RenderedImage, ValidatedImage } from "../../ports/image.ts";
import { ImageEngine, type ImageEngineShape } from "../../ports/image-engine.ts";
import { PersonSegmenter, type PersonSegmenterShape } from "../../ports/person-segmenter.ts";
import type { Raster } from "./raster.ts";
import { DEFAULT_MAX_PIXELS } from "./sharp-image-inspector.ts";
import { open, type Size, type StepContext, type StepHandler, stepHandlers } from "./sharp-template-steps.ts";

export interface SharpImageEngineOptions {
  /** Refuse to decode more pixels than this, whatever the inspector said; default 40 megapixels. */
  readonly maxPixels?: number;
  /**
   * libvips stops a pipeline that runs longer than this (whole seconds, default 30). The request
   * deadline belongs to the capacity wrapper; this only makes sure abandoned native work ends.
   */
  readonly pipelineTimeoutSeconds?: number;
}

type MaskError = Effect.Error<ReturnType<PersonSegmenterShape["segment"]>>;

const CONTENT_TYPE: Readonly<Record<OutputFormat, string>> = {
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  avif: "image/avif",
};

const encoder = (image: Sharp, output: TemplateOutput): Sharp => {
  switch (output.format) {
    case "jpeg":
      // JPEG has no transparency: transparent areas (padding, cut-outs) become white, not black.
      return image.flatten({ background: "#ffffff" }).jpeg({ quality: output.quality });
    case "png":
      return image.png({ compressionLevel: 6 });
    case "webp":
      return image.webp({ quality: output.quality, alphaQuality: 100 });
    case "avif":
      // effort 2 of 9: AVIF at the default effort costs seconds per megapixel on two cores.
      return image.avif({ quality: output.quality, effort: 2 });
  }
};

const isTimeout = (cause: unknown) => cause instanceof Error && /timeout/i.test(cause.message);

/**
 * Renders a catalog template by interpreting its steps one after the other: the engine knows
 * operations, never templates. Decoding honours EXIF orientation, takes the first frame of an
 * animation, and converts CMYK, 16-bit, palette and grey inputs to 8-bit sRGB before any colour
 * step runs. Only templates with person-mask steps call the segmenter.
 */
export const makeSharpImageEngine = (segmenter: PersonSegmenterShape, options: SharpImageEngineOptions = {}): ImageEngineShape => {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const timeoutSeconds = options.pipelineTimeoutSeconds ?? 30;
  const handlers = stepHandlers<MaskError>();

  /** Runs a libvips pipeline; a timeout is EngineTimeout, any other failure means what `otherwise` says. */
  const execute = <A, E>(run: () => Promise<A>, otherwise: (cause: unknown) => Effect.Effect<never, E>): Effect.Effect<A, E | EngineTimeout> =>
    Effect.tryPromise({ try: run, catch: (cause) => cause }).pipe(
      Effect.catch((cause): Effect.Effect<never, E | EngineTimeout> =>
        isTimeout(cause) ? Effect.fail(new EngineTimeout({ deadlineMs: timeoutSeconds * 1000 })) : otherwise(cause),
      ),
    );

  const toRaster = (image: Sharp) => async (): Promise<Raster> => {
    const { data, info } = await image.timeout({ seconds: timeoutSeconds }).toColourspace("srgb").raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels };
  };

  /** Decodes to 8-bit sRGB, joined by the first step when that step may run inside the decoder. */
  const decode = (image: ValidatedImage, first: TemplateStep | undefined) => {
    const decoding = sharp(image.bytes, { failOn: "error", limitInputPixels: maxPixels, autoOrient: true, pages: 1 });
    const onDecode = first && (handlers[first.op].onDecode as ((decoding: Sharp, step: TemplateStep, size: Size) => Sharp) | undefined);
    // The inspector's size is the displayed one (after EXIF orientation), as the decoder's steps see it.
    return execute(toRaster(onDecode && first ? onDecode(decoding, first, image) : decoding), () =>
      Effect.fail(new InvalidImage({ message: `the ${image.format.toUpperCase()} image data is corrupt or truncated` })),
    ).pipe(Effect.map((raster) => ({ raster, consumed: onDecode ? 1 : 0 })));
  };

  return {
    render: (image, template) =>
      Effect.gen(function* () {
        const name = `${template.templateType}/${template.template}`;
        /** A failure after decoding is a fault of ours or of the template, never of the client's image. */
        const defect =
          (what: string) =>
          (cause: unknown): Effect.Effect<never> =>
            Effect.die(new Error(`template ${name}: ${what}`, { cause }));

        let mask: Effect.Success<ReturnType<PersonSegmenterShape["segment"]>> | undefined;
        /** False once a step has cropped, padded or framed: a mask of the upload would no longer line up. */
        let maskAligned = true;
        const context: StepContext<MaskError> = {
          personMask: (raster) =>
            Effect.gen(function* () {
              if (!maskAligned) return yield* defect("person-mask steps must come before crops, padding and margins")(undefined);
              mask ??= yield* segmenter.segment(image);
              const { width, height, alpha } = mask;
              if (width === raster.width && height === raster.height) return Buffer.from(alpha);
              return yield* Effect.promise(() =>
                // extractChannel: sharp would otherwise write a one-band image out as three-band sRGB.
                sharp(alpha, { raw: { width, height, channels: 1 } })
                  .resize(raster.width, raster.height, { fit: "fill" })
                  .extractChannel(0)
                  .raw()
                  .toBuffer(),
              );
            }),
        };
        const track = (step: TemplateStep) => {
          const reshapes = handlers[step.op].reshapes as ((step: TemplateStep) => boolean) | undefined;
          if (reshapes?.(step)) maskAligned = false;
        };

        const decoded = yield* decode(image, template.steps[0]);
        template.steps.slice(0, decoded.consumed).forEach(track);
        let raster = decoded.raster;
        for (const step of template.steps.slice(decoded.consumed)) {
          const handler = handlers[step.op] as StepHandler<TemplateStep, MaskError>;
          raster = yield* execute(toRaster(yield* handler.run(raster, step, context)), defect(`step ${step.op} failed`));
          track(step);
        }

        const { data, info } = yield* execute(
          () => encoder(open(raster).timeout({ seconds: timeoutSeconds }), template.output).toBuffer({ resolveWithObject: true }),
          defect(`encoding ${template.output.format} failed`),
        );
        const rendered: RenderedImage = {
          bytes: data,
          format: template.output.format,
          contentType: CONTENT_TYPE[template.output.format],
          width: info.width,
          height: info.height,
        };
        return rendered;
      }),
  };
};

/** The engine, taking its person segmenter from the context (only background templates use it). */
export const sharpImageEngineLayer = (options: SharpImageEngineOptions = {}) =>
  Layer.effect(ImageEngine)(
    Effect.gen(function* () {
      return makeSharpImageEngine(yield* PersonSegmenter, options);
    }),
  );
