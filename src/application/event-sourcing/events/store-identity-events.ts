import { Schema } from "effect";
import { makeEventCodec } from "./event-codec.ts";
import { At, described } from "./event-fields.ts";

/** The one event of the `store-identity` stream, as stored. */
export const StoreIdentityEventSchema = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("StoreIdentified"),
    data: Schema.Struct({
      storeId: described(Schema.String, "a random UUID; the store's identity is `<storeId>@<global position of this event>`"),
      at: At,
    }),
  }).annotate({ description: "The store is named, by the first process (server or itsctl) to start on it.", writtenBy: "the first start on a new store" }),
]);
export type StoreIdentityEvent = typeof StoreIdentityEventSchema.Type;

export const storeIdentityEventCodec = makeEventCodec(StoreIdentityEventSchema);
