/**
 * Preloaded into a service process (`NODE_OPTIONS=--import <this file>`) to run it as if it were
 * `SHIFTED_CLOCK_MS` later: every reading of the wall clock (`new Date()`, `Date.now()`, so the
 * Clock port too) moves; timers do not. How an end-to-end test lets a day pass in a second.
 */
const offset = Number(process.env.SHIFTED_CLOCK_MS ?? "0");
const RealDate = Date;
const now = () => RealDate.now() + offset;

globalThis.Date = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
  apply: () => new RealDate(now()).toString(),
  get: (target, property, receiver) => (property === "now" ? now : Reflect.get(target, property, receiver)),
});
