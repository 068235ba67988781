import { Effect } from "effect";
import { resolveTryOnSettings, type TryOnSettings } from "../../domain/tryon-settings.ts";
import { ImageInspector } from "../../ports/engines/image-inspector.ts";
import { type TRYON_METHOD, TryOnEngine } from "../../ports/engines/tryon-engine.ts";
import type { Principal } from "../access/authenticate.ts";
import { InvalidRequest } from "../errors.ts";
import { ServiceSettings } from "../settings.ts";
import { decodeImagePayload } from "./image-payload.ts";
import { entitle, runPlanned } from "./run-transformation.ts";
import { storeResult } from "./store-result.ts";

export interface TryOnInput {
  readonly personImage: string;
  readonly clothingImage: string;
  /** Resolved against the allowed values: unknown ones are a 400 naming the allowed ones. */
  readonly settings?: unknown;
}

export interface TryOnOutcome {
  readonly resultId: string;
  readonly expiresAt: Date;
  readonly settings: TryOnSettings;
  readonly format: string;
  readonly width: number;
  readonly height: number;
  /** Share of the person's torso the garment covers (see TryOnResult). */
  readonly coverage: number;
  /** How the result was made, and how sure the engine is of its reading of the person (see TryOnResult). */
  readonly method: typeof TRYON_METHOD;
  readonly confidence: number;
}

/** POST /virtual-tryon: dress the person in the garment, store the composite. */
export const planVirtualTryOn = (principal: Principal, input: TryOnInput) =>
  Effect.gen(function* () {
    const resolved = resolveTryOnSettings(input.settings);
    if (!resolved.ok) {
      return yield* new InvalidRequest({
        message: resolved.problems.map((p) => `${p.path}: ${p.message}`).join("; "),
        details: resolved.problems,
      });
    }
    const entitled = yield* entitle(principal, "virtual-tryon");
    const settings = yield* ServiceSettings;
    const process = Effect.gen(function* () {
      const inspector = yield* ImageInspector;
      const person = yield* inspector.inspect(yield* decodeImagePayload("personImage", input.personImage, settings.maxImageBytes));
      const clothing = yield* inspector.inspect(yield* decodeImagePayload("clothingImage", input.clothingImage, settings.maxImageBytes));
      const result = yield* (yield* TryOnEngine).tryOn({ person, clothing, settings: resolved.settings });
      const { resultId, expiresAt, output } = yield* storeResult(result.image);
      const { format, width, height } = result.image;
      const { coverage, method, confidence } = result;
      const value: TryOnOutcome = { resultId, expiresAt, settings: result.settings, format, width, height, coverage, method, confidence };
      return { value, output };
    });
    return { entitled, parameters: { ...resolved.settings }, process, units: 1 };
  });

export const virtualTryOn = (principal: Principal, input: TryOnInput) => Effect.flatMap(planVirtualTryOn(principal, input), (plan) => runPlanned(plan));
