import { Effect } from "effect";
import { generate } from "../../../../application/transformations/generate.ts";
import { recognizeText } from "../../../../application/transformations/recognize-text.ts";
import { virtualTryOn } from "../../../../application/transformations/virtual-tryon.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import { type ResultUrlOptions, transformationData } from "./transformation-data.ts";
import type { transformations } from "./transformations-api.ts";

/** The transformations (transformations-api.ts): the use case each runs with the decoded request, and its `data` (transformation-data.ts). */
export const transformationHandlers = (options: ResultUrlOptions): GroupHandlers<typeof transformations, AppServices> => {
  const data = transformationData(options);
  return {
    generateImage: ({ principal, payload }) => Effect.flatMap(generate(principal, payload), data.generate),
    recognizeText: ({ principal, payload }) => Effect.flatMap(recognizeText(principal, payload), data.ocr),
    virtualTryOn: ({ principal, payload }) => Effect.flatMap(virtualTryOn(principal, payload), data["virtual-tryon"]),
  };
};
