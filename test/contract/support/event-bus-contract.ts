import { randomUUID } from "node:crypto";
import { Context, Deferred, Effect, Fiber, Layer, Option, type Scope } from "effect";
import { describe, expect, it } from "vitest";
import { EventBus, type EventBusShape, type EventNotice, noticeOf, type Subscription } from "../../../src/ports/event-bus.ts";
import type { RecordedEvent } from "../../../src/ports/event-store.ts";

/**
 * One adapter under contract. `bus` makes a fresh bus for one test (released with the scope); each
 * `open` is an instance on it as another process would open it (for the in-process bus, there is
 * only the one process).
 */
export interface EventBusUnderContract {
  readonly name: string;
  /** Why the suite cannot run here (its server is absent), else undefined. */
  readonly skip?: string | undefined;
  readonly bus: Effect.Effect<{ readonly open: Effect.Effect<EventBusShape, unknown, Scope.Scope> }, unknown, Scope.Scope>;
}

export const instanceOf = <E>(layer: Layer.Layer<EventBus, E>): Effect.Effect<EventBusShape, E, Scope.Scope> =>
  Layer.build(layer).pipe(Effect.map((context) => Context.get(context, EventBus)));

let position = 0;
const recorded = (streamName: string, type = "Happened", data: RecordedEvent["data"] = {}): RecordedEvent => {
  position++;
  return {
    eventId: randomUUID(),
    streamName,
    streamRevision: 0,
    globalPosition: position,
    type,
    data: { n: position, ...data },
    metadata: { requestId: randomUUID() },
    recordedAt: new Date().toISOString(),
  };
};

const publishAll = (bus: EventBusShape, events: ReadonlyArray<RecordedEvent>) => Effect.forEach(events, (event) => bus.publish(event));

/** Consumes until `count` notices were handled (or the handler says stop), then stops the consumer. */
const consumeUntil = (
  bus: EventBusShape,
  subscription: Subscription,
  count: number,
  handler: (notice: EventNotice, handled: ReadonlyArray<EventNotice>) => Effect.Effect<void, string> = () => Effect.void,
) =>
  Effect.gen(function* () {
    const handled: Array<EventNotice> = [];
    const done = yield* Deferred.make<void>();
    const fiber = yield* bus
      .consume(subscription, (event) =>
        handler(event, handled).pipe(
          Effect.tap(() =>
            Effect.suspend(() => {
              handled.push(event);
              return handled.length >= count ? Deferred.succeed(done, undefined) : Effect.void;
            }),
          ),
        ),
      )
      .pipe(Effect.forkChild);
    yield* Deferred.await(done).pipe(Effect.timeout("15 seconds"));
    yield* Fiber.interrupt(fiber);
    return handled;
  });

const ids = (events: ReadonlyArray<EventNotice>) => events.map((event) => event.eventId);

export const eventBusContract = (target: EventBusUnderContract) =>
  describe.skipIf(target.skip !== undefined)(`EventBus contract: ${target.name}`, () => {
    const withBuses = <A>(
      count: number,
      body: (buses: ReadonlyArray<EventBusShape>, durable: (name: string) => string) => Effect.Effect<A, unknown, Scope.Scope>,
    ) => {
      const suffix = randomUUID().slice(0, 8);
      return Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const bus = yield* target.bus;
            const buses: Array<EventBusShape> = [];
            for (let i = 0; i < count; i++) buses.push(yield* bus.open);
            return yield* body(buses, (name) => `${name}-${suffix}`);
          }),
        ),
      );
    };
    const withBus = <A>(body: (bus: EventBusShape, durable: (name: string) => string) => Effect.Effect<A, unknown, Scope.Scope>) =>
      withBuses(1, ([bus], durable) => body(bus!, durable));

    it("delivers notices in publish order, those published before the durable began and after: each event's id and position, nothing of its contents", () =>
      withBus((bus, durable) =>
        Effect.gen(function* () {
          const early = Array.from({ length: 5 }, (_, i) => recorded(`quota-a-${i}`, "QuotaReserved", { text: "Grüße 👩🏽‍💻", nested: { list: [1, null, true] } }));
          const late = Array.from({ length: 5 }, (_, i) => recorded(`account-b-${i}`));
          yield* publishAll(bus, early);
          const consuming = yield* consumeUntil(bus, { durable: durable("ordered") }, 10).pipe(Effect.forkChild);
          yield* publishAll(bus, late);
          const handled = yield* Fiber.join(consuming);
          expect(handled).toEqual([...early, ...late].map(noticeOf));
        }),
      ));

    it("hands each event over with its place on the bus, the sequence publish reported", () =>
      withBus((bus, durable) =>
        Effect.gen(function* () {
          const events = [recorded("account-p"), recorded("quota-p-2026-01"), recorded("account-p")];
          const published = yield* publishAll(bus, events);
          const places: Array<{ subject: string; sequence: number }> = [];
          yield* Effect.gen(function* () {
            const done = yield* Deferred.make<void>();
            const fiber = yield* bus
              .consume({ durable: durable("places") }, (_event, message) =>
                Effect.suspend(() => {
                  places.push(message);
                  return places.length === events.length ? Deferred.succeed(done, undefined) : Effect.void;
                }),
              )
              .pipe(Effect.forkChild);
            yield* Deferred.await(done).pipe(Effect.timeout("15 seconds"));
            yield* Fiber.interrupt(fiber);
          });
          expect(places.map((place) => place.sequence)).toEqual(published.map((p) => p.sequence));
          expect(places[0]!.subject).toMatch(/\.account$/);
          expect(places[1]!.subject).toMatch(/\.quota$/);
        }),
      ));

    it("drops a repeated event id, reports it as a duplicate and delivers the event once", () =>
      withBus((bus, durable) =>
        Effect.gen(function* () {
          const [first, second] = [recorded("quota-x"), recorded("quota-x")];
          const published = yield* bus.publish(first);
          expect(published.duplicate).toBe(false);
          const again = yield* bus.publish(first);
          expect(again).toEqual({ sequence: published.sequence, duplicate: true });
          const next = yield* bus.publish(second);
          expect(next.duplicate).toBe(false);
          expect(next.sequence).toBeGreaterThan(published.sequence);
          yield* bus.publish(first);
          const third = recorded("quota-x");
          yield* bus.publish(third);
          expect(ids(yield* consumeUntil(bus, { durable: durable("dedup") }, 3))).toEqual(ids([first, second, third]));
        }),
      ));

    it("resumes a durable after its last acknowledged event; one in hand when stopped comes again", () =>
      withBus((bus, durable) =>
        Effect.gen(function* () {
          const events = Array.from({ length: 6 }, (_, i) => recorded(`account-r${i}`));
          yield* publishAll(bus, events);
          const subscription = { durable: durable("resume") };
          const inHand = yield* Deferred.make<void>();
          const handled: Array<EventNotice> = [];
          const stuck = yield* bus
            .consume(subscription, (event) =>
              handled.length === 3 ? Deferred.succeed(inHand, undefined).pipe(Effect.andThen(Effect.never)) : Effect.sync(() => void handled.push(event)),
            )
            .pipe(Effect.forkChild);
          yield* Deferred.await(inHand).pipe(Effect.timeout("15 seconds"));
          yield* Fiber.interrupt(stuck);
          expect(ids(handled)).toEqual(ids(events.slice(0, 3)));
          const resumed = yield* consumeUntil(bus, subscription, 3);
          expect(ids(resumed)).toEqual(ids(events.slice(3)));
        }),
      ));

    it("hands a failed event over again before any later one", () =>
      withBus((bus, durable) =>
        Effect.gen(function* () {
          const events = [recorded("quota-f"), recorded("quota-f"), recorded("quota-f")];
          yield* publishAll(bus, events);
          const attempts: Array<string> = [];
          const handled = yield* consumeUntil(bus, { durable: durable("retry") }, 3, (event) =>
            Effect.suspend(() => {
              attempts.push(event.eventId);
              const failures = attempts.filter((id) => id === events[1]!.eventId).length;
              return event.eventId === events[1]!.eventId && failures <= 2 ? Effect.fail("not yet") : Effect.void;
            }),
          );
          expect(ids(handled)).toEqual(ids(events));
          expect(attempts).toEqual(ids([events[0]!, events[1]!, events[1]!, events[1]!, events[2]!]));
        }),
      ));

    it("carries an event of any size: the notice of a 2 MiB event is delivered, and so are the events after it", () =>
      withBus((bus, durable) =>
        Effect.gen(function* () {
          const events = [recorded("transformation-big", "Completed", { body: "x".repeat(2 * 1024 * 1024) }), recorded("account-after")];
          yield* publishAll(bus, events);
          expect(yield* consumeUntil(bus, { durable: durable("large") }, 2)).toEqual(events.map(noticeOf));
        }),
      ));

    it("lets consumers of one durable, on several instances, share its events: each once, in order, one at a time", () =>
      withBuses(2, (buses, durable) =>
        Effect.gen(function* () {
          const events = Array.from({ length: 30 }, (_, i) => recorded(`quota-s${i % 3}`));
          const subscription = { durable: durable("shared") };
          const handled: Array<{ event: EventNotice; by: number }> = [];
          let inFlight = 0;
          let maxInFlight = 0;
          const all = yield* Deferred.make<void>();
          const consumers = yield* Effect.forEach(buses, (bus, by) =>
            bus
              .consume(subscription, (event) =>
                Effect.gen(function* () {
                  inFlight++;
                  maxInFlight = Math.max(maxInFlight, inFlight);
                  yield* Effect.sleep("2 millis");
                  handled.push({ event, by });
                  inFlight--;
                  if (handled.length === events.length) yield* Deferred.succeed(all, undefined);
                }),
              )
              .pipe(Effect.forkChild),
          );
          yield* publishAll(buses[0]!, events);
          yield* Deferred.await(all).pipe(Effect.timeout("20 seconds"));
          yield* Effect.sleep("300 millis");
          yield* Effect.forEach(consumers, Fiber.interrupt);
          expect(ids(handled.map((h) => h.event))).toEqual(ids(events));
          expect(maxInFlight).toBe(1);
        }),
      ));

    it("starts a deleted durable over from the first event", () =>
      withBus((bus, durable) =>
        Effect.gen(function* () {
          const events = [recorded("account-d"), recorded("account-d")];
          yield* publishAll(bus, events);
          const subscription = { durable: durable("deleted") };
          expect(ids(yield* consumeUntil(bus, subscription, 2))).toEqual(ids(events));
          yield* bus.deleteSubscription(subscription.durable);
          expect(ids(yield* consumeUntil(bus, subscription, 2))).toEqual(ids(events));
          yield* bus.deleteSubscription(durable("never-made"));
        }),
      ));

    it("keeps the forwarder checkpoint with the bus, and never lowers it", () =>
      withBuses(2, ([bus, other]) =>
        Effect.gen(function* () {
          expect(yield* bus!.publishedThrough).toEqual(Option.none());
          yield* bus!.markPublishedThrough(10);
          expect(yield* bus!.publishedThrough).toEqual(Option.some(10));
          yield* other!.markPublishedThrough(5);
          expect(yield* bus!.publishedThrough).toEqual(Option.some(10));
          yield* other!.markPublishedThrough(12);
          expect(yield* bus!.publishedThrough).toEqual(Option.some(12));
          expect(yield* other!.publishedThrough).toEqual(Option.some(12));
        }),
      ));
  });
