import { Context } from "effect";

/** How much an engine-bound route reads: a try-on's two images, or one image (generate, OCR). */
export type BodySize = "oneImage" | "twoImages";

/** The byte limit of each body size (MAX_BODY_BYTES and its two-image share). */
export type BodyLimits = { readonly [S in BodySize]: number };

/**
 * An endpoint whose work waits on an engine: admitted by memory before its body is read, and its
 * body read within its size's limit. Annotated on the endpoint in its group (groups/<group>/<group>-api.ts); mount.ts reads it.
 */
export class EngineWork extends Context.Service<EngineWork, BodySize>()("image-transformation-api/EngineWork") {}
