import { Context, Layer } from "effect";

/** Wall-clock time, injected so that the core and its tests control it. */
export class Clock extends Context.Service<Clock, { readonly now: () => Date }>()("Clock") {}

export const systemClock = Layer.succeed(Clock)({ now: () => new Date() });

/** A clock tests move by hand. */
export const manualClock = (start: Date) => {
  let current = start.getTime();
  return {
    layer: Layer.succeed(Clock)({ now: () => new Date(current) }),
    advance: (ms: number) => {
      current += ms;
    },
    set: (instant: Date) => {
      current = instant.getTime();
    },
  };
};
