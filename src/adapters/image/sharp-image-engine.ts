import { Effect, Layer } from "effect";
import sharp, { type OutputInfo, type Sharp } from "sharp";
import { MEDIA_TYPES } from "../../domain/negotiate-format.ts";
import type { TemplateStep } from "../../domain/template-catalog/template.ts";
import { FaceDetector, type FaceDetectorShape } from "../../ports/engines/face-detector.ts";
import type { Placeholder, RenderedImage, RenderedTemplate, ValidatedImage } from "../../ports/engines/image.ts";
import type { Framing } from "../../ports/engines/image.ts";
import { ImageEngine, type ImageEngineShape } from "../../ports/engines/image-engine.ts";
import { PersonSegmenter, type PersonSegmenterShape } from "../../ports/engines/person-segmenter.ts";
import type { EngineTimeout } from "../../ports/errors.ts";
import { InvalidImage } from "../../ports/errors.ts";
import { coverAtFixedPlace, coverFromUpload, frameCover, isCover, type RunPipeline, templateFocus } from "./cover-framing.ts";
import { libvipsExecutor } from "./libvips-execute.ts";
import { placeholderOf, placeholderOfEncoded, placeholderOfImage } from "./placeholders.ts";
import type { Raster } from "./raster.ts";
import { makeDesignRenderer } from "./sharp-design-renderer.ts";
import { encoder } from "./sharp-encoder.ts";
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
  /** Finds faces for crops to fill; without one, a crop's `auto` focus is attention. */
  readonly faces?: FaceDetectorShape;
}

type MaskError = Effect.Error<ReturnType<PersonSegmenterShape["segment"]>>;

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

  const execute = libvipsExecutor(timeoutSeconds);

  const toRasterWithInfo = (image: Sharp) => async () => {
    const { data, info } = await image.timeout({ seconds: timeoutSeconds }).toColourspace("srgb").raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
    return { raster: { data, width: info.width, height: info.height, channels: info.channels } satisfies Raster, info };
  };
  const toRaster = (image: Sharp) => async (): Promise<Raster> => (await toRasterWithInfo(image)()).raster;
  const undecodable = (image: ValidatedImage) => () =>
    Effect.fail(new InvalidImage({ message: `the ${image.format.toUpperCase()} image data is corrupt or truncated` }));

  /** Decodes to 8-bit sRGB, joined by the first step when that step may run inside the decoder. */
  const decoder = (image: ValidatedImage) => sharp(image.bytes, { failOn: "error", limitInputPixels: maxPixels, autoOrient: true, pages: 1 });
  const decode = (image: ValidatedImage, first: TemplateStep | undefined) => {
    const onDecode = first && !isCover(first) && (handlers[first.op].onDecode as ((decoding: Sharp, step: TemplateStep, size: Size) => Sharp) | undefined);
    // The inspector's size is the displayed one (after EXIF orientation), as the decoder's steps see it.
    return execute(toRaster(onDecode && first ? onDecode(decoder(image), first, image) : decoder(image)), undecodable(image)).pipe(
      Effect.map((raster) => ({ raster, consumed: onDecode ? 1 : 0 })),
    );
  };

  const renderDesign = makeDesignRenderer({ maxPixels, timeoutSeconds, faces: options.faces });

  return {
    transcode: (image, output) =>
      Effect.map(
        execute(() => encoder(decoder(image).timeout({ seconds: timeoutSeconds }), output).toBuffer({ resolveWithObject: true }), undecodable(image)),
        ({ data, info }): RenderedImage => ({
          bytes: data,
          format: output.format,
          contentType: MEDIA_TYPES[output.format],
          width: info.width,
          height: info.height,
        }),
      ),
    renderDesign,
    render: (image, template, renderOptions = {}) =>
      Effect.gen(function* () {
        const name = `${template.templateType}/${template.template}`;
        /** A failure after decoding is a fault of ours or of the template, never of the client's image. */
        const defect =
          (what: string) =>
          (cause: unknown): Effect.Effect<never> =>
            Effect.die(new Error(`template ${name}: ${what}`, { cause }));

        const rendered = (framing: Framing | undefined, placeholder: Placeholder, bytes: Buffer, info: OutputInfo): RenderedTemplate => ({
          ...(framing ? { framing } : {}),
          placeholder,
          bytes,
          format: template.output.format,
          contentType: MEDIA_TYPES[template.output.format],
          width: info.width,
          height: info.height,
        });

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

        const pipeline: RunPipeline<EngineTimeout> = (pipe) => execute(toRasterWithInfo(pipe), defect("a crop to fill failed"));
        let framing: Framing | undefined;
        const focusFor = (step: Extract<TemplateStep, { op: "resize" }>) => renderOptions.focus ?? templateFocus(step);
        const framed = (step: TemplateStep, result: { readonly raster: Raster; readonly framing: Framing }) => {
          framing = result.framing;
          track(step);
          return result.raster;
        };

        const first = template.steps[0];
        let raster: Raster;
        let consumed = 1;
        if (isCover(first)) {
          // The first crop to fill, straight from the upload: at a fixed place without a copy of ours in between.
          const focus = focusFor(first);
          const decoding = () => decoder(image);
          const cover =
            focus === "centre" || typeof focus === "object"
              ? coverAtFixedPlace(decoding, image, first, focus)
              : yield* coverFromUpload(decoding, image, first, focus, options.faces, (pipe) => execute(toRasterWithInfo(pipe), undecodable(image)));
          const failed = cover.readsUpload ? undecodable(image) : defect("a crop to fill failed");
          if (template.steps.length === 1) {
            const { data, info } = yield* execute(
              () => encoder(cover.pipeline.timeout({ seconds: timeoutSeconds }).toColourspace("srgb"), template.output).toBuffer({ resolveWithObject: true }),
              failed,
            );
            const { preview } = cover;
            const placeholder = yield* execute(() => (preview ? placeholderOfImage(preview) : placeholderOfEncoded(data)), defect("the placeholder failed"));
            return rendered(cover.framing, placeholder, data, info);
          }
          raster = framed(first, { raster: yield* execute(toRaster(cover.pipeline), failed), framing: cover.framing });
        } else {
          const plain = yield* decode(image, first);
          consumed = plain.consumed;
          template.steps.slice(0, consumed).forEach(track);
          raster = plain.raster;
        }
        for (const step of template.steps.slice(consumed)) {
          // The first crop to fill, while the raster still lines up with the upload, places its window by focus.
          if (isCover(step) && framing === undefined && maskAligned) {
            const mapping = { scale: raster.width / image.width, left: 0, top: 0 };
            const cover = yield* frameCover(raster, mapping, step, focusFor(step), { detector: options.faces }, pipeline);
            raster = framed(step, { raster: (yield* pipeline(cover.pipeline)).raster, framing: cover.framing });
            continue;
          }
          const handler = handlers[step.op] as StepHandler<TemplateStep, MaskError>;
          raster = yield* execute(toRaster(yield* handler.run(raster, step, context)), defect(`step ${step.op} failed`));
          track(step);
        }

        const placeholder = yield* execute(() => placeholderOf(raster), defect("the placeholder failed"));
        const { data, info } = yield* execute(
          () => encoder(open(raster).timeout({ seconds: timeoutSeconds }), template.output).toBuffer({ resolveWithObject: true }),
          defect(`encoding ${template.output.format} failed`),
        );
        return rendered(framing, placeholder, data, info);
      }),
  };
};

/**
 * The engine, taking its person segmenter (only background templates use it) and its face
 * detector (crops to fill) from the context.
 */
export const sharpImageEngineLayer = (options: SharpImageEngineOptions = {}) =>
  Layer.effect(ImageEngine)(
    Effect.gen(function* () {
      const faces = yield* FaceDetector;
      return makeSharpImageEngine(yield* PersonSegmenter, { ...options, faces });
    }),
  );
