import { type Context, Effect, Layer } from "effect";
import type { ImageEngineShape } from "./ports/engines/image-engine.ts";
import type { OcrEngineShape } from "./ports/engines/ocr-engine.ts";
import type { TryOnEngineShape } from "./ports/engines/tryon-engine.ts";
import type { EventBusShape } from "./ports/event-bus.ts";
import type { EventStoreShape } from "./ports/event-store.ts";
import type { RateLimiterShape } from "./ports/rate-limiter.ts";
import type { ResultStoreShape } from "./ports/result-store.ts";

/** Wrappers the server puts around ports (metrics, tracing: see observability.ts); each returns the same port. */
export interface PortDecorators {
  readonly eventStore: (store: EventStoreShape) => EventStoreShape;
  readonly eventBus: (bus: EventBusShape) => EventBusShape;
  readonly rateLimiter: (limiter: RateLimiterShape) => RateLimiterShape;
  readonly imageEngine: (engine: ImageEngineShape) => ImageEngineShape;
  readonly ocrEngine: (engine: OcrEngineShape) => OcrEngineShape;
  readonly tryOnEngine: (engine: TryOnEngineShape) => TryOnEngineShape;
  readonly resultStore: (store: ResultStoreShape) => ResultStoreShape;
}

export const same = <S>(shape: S): S => shape;
export const undecorated: PortDecorators = {
  eventStore: same,
  eventBus: same,
  rateLimiter: same,
  imageEngine: same,
  ocrEngine: same,
  tryOnEngine: same,
  resultStore: same,
};

/** `layer`'s service, passed through `decorate`; the identity leaves the layer untouched. */
export const decorated =
  <I, S>(service: Context.Key<I, S>, decorate: (shape: S) => S) =>
  <E, R>(layer: Layer.Layer<I, E, R>): Layer.Layer<I, E, R> =>
    decorate === same ? layer : Layer.effect(service)(Effect.map(service, decorate)).pipe(Layer.provide(layer));
