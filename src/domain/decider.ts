/**
 * The decider pattern: commands are decided against state folded from past events.
 * A rejection is a value, not an exception, so the core stays total and pure.
 */
export interface DomainRejection {
  readonly _tag: "DomainRejection";
  readonly code: string;
  readonly message: string;
}

export type Decision<Event> = { readonly ok: true; readonly events: ReadonlyArray<Event> } | { readonly ok: false; readonly rejection: DomainRejection };

export interface Decider<Command, Event, State> {
  readonly decide: (command: Command, state: State) => Decision<Event>;
  readonly evolve: (state: State, event: Event) => State;
  readonly initialState: () => State;
}

export const accept = <Event>(...events: ReadonlyArray<Event>): Decision<Event> => ({ ok: true, events });

export const reject = <Event = never>(code: string, message: string): Decision<Event> => ({
  ok: false,
  rejection: { _tag: "DomainRejection", code, message },
});

export const fold = <Event, State>(decider: Pick<Decider<unknown, Event, State>, "evolve" | "initialState">, events: Iterable<Event>): State => {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
};
