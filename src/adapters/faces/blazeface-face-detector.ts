import { Effect, Layer } from "effect";
import sharp from "sharp";
import { type Face, transformFace } from "../../domain/crop-window.ts";
import { FaceDetector, type FacePixels } from "../../ports/engines/face-detector.ts";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { startModelThread } from "../threads/model-thread.ts";
import { detectionSize } from "./blazeface-canvases.ts";
import { FINE_SIDE } from "./blazeface-decoding.ts";
import type { FaceThreadSetup } from "./face-thread.ts";

const threadUrl = new URL("./face-thread.ts", import.meta.url);

/**
 * FaceDetector on BlazeFace, run by onnxruntime-node in a thread of its own (face-thread.ts), so
 * no photo holds up the event loop. The thread (the model verified, converted and warmed) starts
 * with the first detection, not with the service: warm at start it held ~70 MiB of an idle
 * service's memory, past the 400 MiB an idle instance may use (docs/ocr.md, OCR languages). A thread
 * that fails to start fails that request with 503, and the next one tries again. The image
 * engine's capacity bounds how many detections wait for the thread.
 * Two onnxruntime threads by default, which sleep between operators instead of spinning (spinning,
 * they took 2.5 times the CPU): a 576×384 fine run 13 ms instead of 20 for a sixth more CPU, the
 * time detection adds to a crop a quarter less, and no throughput lost with every core busy
 * (bench:faces, bench:generate, 2026-11-27). The thread runs at the priority of the libvips
 * threads beside it, not below: a crop waits for its faces in one of the image engine's few slots,
 * and below the request thread and libvips, while a burst's bodies were parsed, detection starved
 * and held the slots idle (a burst of 20 took 8.2 s with 5 refused, 6.2 s with none at the same
 * priority; bench:burst).
 */
export const BlazeFaceDetectorLive = (options: { readonly threads?: number; readonly niceness?: number } = {}) =>
  Layer.effect(FaceDetector)(
    Effect.gen(function* () {
      let starting: ReturnType<typeof startThread> | undefined;
      const startThread = () =>
        startModelThread<FacePixels, ReadonlyArray<Face>>(
          threadUrl,
          { threads: options.threads ?? 2, niceness: options.niceness ?? 0 } satisfies FaceThreadSetup,
          "face",
        );
      const threadOnce = () => {
        starting ??= startThread().catch((error: unknown) => {
          starting = undefined;
          throw error;
        });
        return starting;
      };
      yield* Effect.addFinalizer(() => Effect.promise(async () => (await starting?.catch(() => undefined))?.terminate()));
      return {
        workingSide: FINE_SIDE,
        detect: (image) =>
          Effect.tryPromise({
            try: async () => {
              const thread = await threadOnce();
              // Shrunk here, by libvips off the event loop, to what the fine run reads: the thread is sent no more than
              // it needs, and resamples nothing but the coarse run's small copy.
              const { width, height } = detectionSize(image);
              if (width === image.width && height === image.height) return thread.run(image);
              const data = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
                .removeAlpha()
                .toColourspace("srgb")
                .resize(width, height, { fit: "fill" })
                .raw()
                .toBuffer();
              const faces = await thread.run({ data, width, height, channels: 3 });
              return faces.map((face) => transformFace(face, image.width / width));
            },
            catch: (cause) => new DependencyUnavailable({ dependency: "face detection thread", cause }),
          }),
      };
    }),
  );
