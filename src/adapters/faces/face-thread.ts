import { workerData } from "node:worker_threads";
import type { Face } from "../../domain/crop-window.ts";
import type { FacePixels } from "../../ports/engines/face-detector.ts";
import { serveModelThread } from "../threads/model-thread-server.ts";
import { loadBlazeFace } from "./blazeface-model.ts";

/** The face detector's own thread: the model is loaded, converted and warmed here, and runs here. */
export interface FaceThreadSetup {
  readonly threads: number;
  /** Below the event loop's priority by this much (0: the same). */
  readonly niceness: number;
}

await serveModelThread((workerData as FaceThreadSetup).niceness, async (setup: FaceThreadSetup) => {
  const model = await loadBlazeFace(setup.threads);
  // Warmed at both scales, so that the first request pays for neither.
  await model.detect({ data: new Uint8Array(1024 * 640 * 3), width: 1024, height: 640, channels: 3 });
  return (job: FacePixels): Promise<ReadonlyArray<Face>> => model.detect(job);
});
