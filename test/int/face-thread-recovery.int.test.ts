import { Effect, Exit, ManagedRuntime } from "effect";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { BlazeFaceDetectorLive } from "../../src/adapters/faces/blazeface-face-detector.ts";
import { FaceDetector } from "../../src/ports/engines/face-detector.ts";
import { faceSet } from "../fixtures/faces/face-set.ts";

/**
 * The face detector's thread poisoned mid-job (pixels that are not what they claim: onnxruntime's
 * side of the thread fails on them) fails that job with DependencyUnavailable, and the next
 * detection is served by a fresh thread with its models loaded again. Real BlazeFace, real thread.
 */
const runtime = ManagedRuntime.make(BlazeFaceDetectorLive());
afterAll(() => runtime.dispose());

describe("the face detection thread", () => {
  it("fails a poisoned job alone, and serves the next one from a fresh thread", async () => {
    const detector = await runtime.runPromise(Effect.service(FaceDetector));
    const photo = (await faceSet()).find((p) => p.name === "astronaut")!;
    const { data, info } = await sharp(photo.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const pixels = { data, width: info.width, height: info.height, channels: 3 } as const;
    expect((await Effect.runPromise(detector.detect(pixels))).length).toBe(1);

    const poisoned = await Effect.runPromiseExit(detector.detect({ data: new Uint8Array(10), width: 300, height: 200, channels: 3 }));
    expect(Exit.isFailure(poisoned) && JSON.stringify(poisoned.cause)).toContain("DependencyUnavailable");

    const started = performance.now();
    const next = await Effect.runPromise(detector.detect(pixels));
    expect(next.length).toBe(1);
    console.log(`[face thread] next detection after a poisoned job: ${Math.round(performance.now() - started)} ms (a fresh thread, models loaded again)`);
  });
});
