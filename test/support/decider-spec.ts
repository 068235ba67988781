import { expect } from "vitest";
import { type Decider, fold } from "../../src/domain/decider.ts";

/** Given past events, when a command is decided, then these events (or this rejection) follow. */
export const deciderSpec = <Command, Event, State>(decider: Decider<Command, Event, State>) => ({
  given: (events: ReadonlyArray<Event>) => ({
    when: (command: Command) => {
      const decision = decider.decide(command, fold(decider, events));
      return {
        then: (expected: ReadonlyArray<Event>) => {
          expect(decision).toEqual({ ok: true, events: expected });
        },
        thenRejects: (code: string) => {
          expect(decision.ok ? "accepted" : decision.rejection.code).toBe(code);
        },
      };
    },
    state: () => fold(decider, events),
  }),
});
