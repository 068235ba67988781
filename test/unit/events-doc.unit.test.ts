import fs from "node:fs";
import path from "node:path";
import { Schema } from "effect";
import { describe, expect, it } from "vitest";
import { makeEventCodec } from "../../src/application/event-sourcing/events/event-codec.ts";
import { QuotaEventSchema } from "../../src/application/event-sourcing/events/quota-events.ts";
import { EVENT_STREAMS, renderEventCatalogue, withCatalogue } from "../../tools/events-doc/event-catalogue.ts";

const document = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/events.md"), "utf8");

describe("docs/events.md", () => {
  it("is what `npm run docs:events` makes from the event Schemas", () => {
    expect(document).toBe(withCatalogue(document, renderEventCatalogue()));
  });

  it("names every event type the codecs decode, with each field", () => {
    for (const stream of EVENT_STREAMS) {
      const ast = stream.codec.schema.ast;
      for (const member of ast._tag === "Union" ? ast.types : [ast]) {
        if (member._tag !== "Objects") throw new Error("an event Schema member is not a Struct");
        const type = member.propertySignatures.find((signature) => signature.name === "type")?.type;
        expect(type?._tag === "Literal" && document.includes(`### ${String(type.literal)}\n`)).toBe(true);
      }
    }
  });

  it("differs from a Schema that gained a field, and refuses a field without a description", () => {
    const withField = (field: Schema.Top) => {
      const union = QuotaEventSchema as unknown as Schema.Union<ReadonlyArray<Schema.Struct<{ type: Schema.Top; data: Schema.Struct<Schema.Struct.Fields> }>>>;
      const [reserved, ...others] = union.members;
      if (reserved === undefined) throw new Error("the quota Schema has no events");
      const grown = Schema.Struct({ type: reserved.fields.type, data: Schema.Struct({ ...reserved.fields.data.fields, region: field }) }).annotate(
        reserved.ast.annotations ?? {},
      );
      const codec = makeEventCodec(Schema.Union([grown, ...others]) as never);
      return EVENT_STREAMS.map((stream) => (stream.name.startsWith("quota-") ? { ...stream, codec } : stream));
    };
    expect(withCatalogue(document, renderEventCatalogue(withField(Schema.String.annotate({ description: "where" }))))).not.toBe(document);
    expect(() => renderEventCatalogue(withField(Schema.String))).toThrow("QuotaReserved: field region has no description annotation");
  });
});
