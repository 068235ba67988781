import { Effect } from "effect";
import sharp, { type OverlayOptions, type Sharp } from "sharp";
import type { DesignBox, DesignLayout, Layer } from "../../domain/account-templates/account-template-design.ts";
import { MEDIA_TYPES } from "../../domain/negotiate-format.ts";
import type { FaceDetectorShape } from "../../ports/engines/face-detector.ts";
import type { Framing, RenderedTemplate, ValidatedImage } from "../../ports/engines/image.ts";
import type { DesignInputs } from "../../ports/engines/image-engine.ts";
import { type EngineTimeout, InvalidImage } from "../../ports/errors.ts";
import { coverFromUpload } from "./cover-framing.ts";
import { libvipsExecutor } from "./libvips-execute.ts";
import { placeholderOf } from "./placeholders.ts";
import type { Raster } from "./raster.ts";
import { encoder } from "./sharp-encoder.ts";
import { drawTextLayer } from "./sharp-text-layer.ts";

export interface DesignRendererOptions {
  readonly maxPixels: number;
  readonly timeoutSeconds: number;
  /** Places a photo layer's cover crop around faces; without one, by attention. */
  readonly faces?: FaceDetectorShape | undefined;
}

/** The quality of lossy design results: text edges are what a design is judged by. */
const DESIGN_QUALITY = 90;
const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

type Overlay = { readonly overlay: OverlayOptions; readonly framing?: Framing };

/**
 * An account's design, drawn by libvips: each layer becomes one overlay inside its box (a shape
 * its fill, an image fitted inside, the photo cropped to cover around faces or fitted, text fitted
 * by sharp-text-layer.ts), and the canvas composites them in order in one pass. Nothing is drawn
 * outside a layer's box.
 */
export const makeDesignRenderer = ({ maxPixels, timeoutSeconds, faces }: DesignRendererOptions) => {
  const run = libvipsExecutor(timeoutSeconds);
  /** A failure after the inputs decoded is ours, never the client's. */
  const defect =
    (what: string) =>
    (cause: unknown): Effect.Effect<never> =>
      Effect.die(new Error(`design render: ${what}`, { cause }));
  const decoder = (image: ValidatedImage) => sharp(image.bytes, { failOn: "error", limitInputPixels: maxPixels, autoOrient: true, pages: 1 });
  const toRaster = (image: Sharp) => async () => {
    const { data, info } = await image.timeout({ seconds: timeoutSeconds }).toColourspace("srgb").raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
    return { raster: { data, width: info.width, height: info.height, channels: info.channels } satisfies Raster, info };
  };
  const undecodable = (what: string, image: ValidatedImage) => () =>
    Effect.fail(new InvalidImage({ message: `${what}: the ${image.format.toUpperCase()} image data is corrupt or truncated` }));
  const rasterOverlay = ({ data, width, height, channels }: Raster, left: number, top: number): OverlayOptions => ({
    input: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    raw: { width, height, channels },
    left,
    top,
  });

  /** A picture fitted inside the box, centred in it. */
  const fitted = (what: string, image: ValidatedImage, box: DesignBox, fit: "inside" | "contain") =>
    Effect.map(
      run(toRaster(decoder(image).resize(box.width, box.height, { fit, background: TRANSPARENT }).ensureAlpha()), undecodable(what, image)),
      ({ raster }) => rasterOverlay(raster, box.x + Math.floor((box.width - raster.width) / 2), box.y + Math.floor((box.height - raster.height) / 2)),
    );

  const overlayOf = (
    layer: Layer,
    inputs: DesignInputs,
  ): Effect.Effect<Overlay | undefined, InvalidImage | EngineTimeout | Effect.Error<ReturnType<FaceDetectorShape["detect"]>>> => {
    const { box } = layer;
    switch (layer.type) {
      case "shape":
        return Effect.succeed({
          overlay: { input: { create: { width: box.width, height: box.height, channels: 4, background: layer.fill } }, left: box.x, top: box.y },
        });
      case "image": {
        const image = inputs.images[layer.name];
        return image === undefined ? Effect.succeed(undefined) : Effect.map(fitted(`images.${layer.name}`, image, box, "inside"), (overlay) => ({ overlay }));
      }
      case "photo": {
        const photo = inputs.photo;
        if (photo === undefined) return Effect.succeed(undefined);
        if (layer.fit === "contain") return Effect.map(fitted("image", photo, box, "contain"), (overlay) => ({ overlay }));
        const step = { op: "resize", width: box.width, height: box.height, fit: "cover" } as const;
        return Effect.flatMap(
          coverFromUpload(
            () => decoder(photo),
            photo,
            step,
            inputs.focus ?? "auto",
            faces,
            (pipe) => run(toRaster(pipe), undecodable("image", photo)),
            inputs.photoFaces,
          ),
          ({ pipeline, readsUpload, framing }) =>
            Effect.map(run(toRaster(pipeline), readsUpload ? undecodable("image", photo) : defect("the photo's crop")), ({ raster }) => ({
              overlay: rasterOverlay(raster, box.x, box.y),
              framing,
            })),
        );
      }
      case "text":
        return Effect.map(
          run(() => drawTextLayer(layer, inputs.text[layer.name] ?? layer.text), defect(`text layer ${layer.name}`)),
          (drawn) => {
            if (drawn === undefined) return undefined;
            const offset = (slack: number, at: "start" | "middle" | "end") => (at === "end" ? slack : at === "middle" ? Math.floor(slack / 2) : 0);
            const across = layer.align === "right" ? "end" : layer.align === "center" ? "middle" : "start";
            const down = layer.valign === "bottom" ? "end" : layer.valign === "middle" ? "middle" : "start";
            return {
              overlay: { input: drawn.png, left: box.x + offset(box.width - drawn.width, across), top: box.y + offset(box.height - drawn.height, down) },
            };
          },
        );
    }
  };

  return (design: DesignLayout, inputs: DesignInputs) =>
    Effect.gen(function* () {
      const { canvas } = design;
      const drawn = yield* Effect.forEach(design.layers, (layer) => overlayOf(layer, inputs), { concurrency: 4 });
      const overlays = drawn.filter((layer): layer is Overlay => layer !== undefined);
      const base = sharp({ create: { width: canvas.width, height: canvas.height, channels: 4, background: canvas.background } });
      const { raster } = yield* run(toRaster(base.composite(overlays.map(({ overlay }) => overlay))), defect("composite"));
      const placeholder = yield* run(() => placeholderOf(raster), defect("placeholder"));
      const output = { format: canvas.format, quality: DESIGN_QUALITY } as const;
      const { data, info } = yield* run(
        () =>
          encoder(
            sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: raster.channels } }).timeout({ seconds: timeoutSeconds }),
            output,
          ).toBuffer({
            resolveWithObject: true,
          }),
        defect(`encoding ${canvas.format}`),
      );
      const framing = overlays.find((layer) => layer.framing !== undefined)?.framing;
      const rendered: RenderedTemplate = {
        ...(framing ? { framing } : {}),
        placeholder,
        bytes: data,
        format: canvas.format,
        contentType: MEDIA_TYPES[canvas.format],
        width: info.width,
        height: info.height,
      };
      return rendered;
    });
};
