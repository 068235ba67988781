import { Schema } from "effect";
import type { JsonObject } from "../../ports/event-store.ts";

/**
 * Who acted: recorded in the metadata of every event a command appends, and shown by the audit.
 * - `api-key`: a request made with an API key (the key id, never the key).
 * - `operator`: `itsctl` at a shell, with the OS user and host it ran as.
 * - `console`: the account holder signed in to the console (the session's public id, never its cookie).
 * - `service`: the service itself, on its own schedule (e.g. the periodic ledger seal).
 */
export const Actor = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("api-key"), keyId: Schema.String, accountId: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("operator"), tool: Schema.Literal("itsctl"), user: Schema.String, host: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("console"), accountId: Schema.String, sessionId: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("service"), task: Schema.String }),
]);
export type Actor = typeof Actor.Type;

export const ACTOR_METADATA_KEY = "actor";

const decodeActor = Schema.decodeUnknownOption(Actor);

/** The actor an event's metadata names; undefined for events written before actors were recorded. */
export const actorOf = (metadata: JsonObject): Actor | undefined => {
  const decoded = decodeActor(metadata[ACTOR_METADATA_KEY]);
  return decoded._tag === "Some" ? decoded.value : undefined;
};

/** An account's own action, through one of its keys or its holder in the console. */
export type AccountActing = { readonly account: { readonly accountId: string } } & (
  { readonly key: { readonly keyId: string } } | { readonly sessionId: string }
);

/** The context of a command an account makes itself: its key, or its console session. */
export const accountActing = (owner: AccountActing): { readonly actor: Actor } => {
  const { accountId } = owner.account;
  return {
    actor: "key" in owner ? { kind: "api-key", keyId: owner.key.keyId, accountId } : { kind: "console", accountId, sessionId: owner.sessionId },
  };
};

export const describeActor = (actor: Actor | undefined): string => {
  if (actor === undefined) return "unrecorded";
  switch (actor.kind) {
    case "api-key":
      return `key ${actor.keyId}`;
    case "operator":
      return `operator ${actor.user}@${actor.host} (itsctl)`;
    case "console":
      return `account holder (console session ${actor.sessionId})`;
    case "service":
      return `service (${actor.task})`;
  }
};
