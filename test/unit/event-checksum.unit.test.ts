import { describe, expect, it } from "vitest";
import { canonicalEventLine, canonicalJson } from "../../src/application/event-sourcing/event-checksum.ts";
import type { RecordedEvent } from "../../src/ports/event-store.ts";

describe("canonicalJson", () => {
  it("sorts object keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 0, y: null }], c: "x" } })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":0}]},"b":1}');
    expect(canonicalJson({ a: { c: "x", d: [3, { y: null, z: 0 }] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [3, { z: 0, y: null }], c: "x" } }));
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it("escapes strings as JSON does", () => {
    expect(canonicalJson({ 'k"ey': "line\nbreak \u0000 ü 👍" })).toBe(JSON.stringify({ 'k"ey': "line\nbreak \u0000 ü 👍" }));
  });
});

describe("canonicalEventLine", () => {
  const event: RecordedEvent = {
    eventId: "e-1",
    streamName: "account-1",
    streamRevision: 3,
    globalPosition: 10,
    type: "Opened",
    data: { plan: "pro", limits: { a: 1, b: 2 } },
    metadata: { by: "cli" },
    recordedAt: "2026-01-01T00:00:00.000Z",
  };

  it("ignores what belongs to the store holding the event: position and recording time", () => {
    expect(canonicalEventLine({ ...event, globalPosition: 99, recordedAt: "2027-02-02T00:00:00.000Z" })).toBe(canonicalEventLine(event));
    expect(canonicalEventLine({ ...event, data: { limits: { b: 2, a: 1 }, plan: "pro" } })).toBe(canonicalEventLine(event));
  });

  it("changes when anything a copy must keep changes", () => {
    for (const changed of [
      { eventId: "e-2" },
      { streamName: "account-2" },
      { streamRevision: 4 },
      { type: "Closed" },
      { data: { plan: "free", limits: { a: 1, b: 2 } } },
      { metadata: {} },
    ]) {
      expect(canonicalEventLine({ ...event, ...changed })).not.toBe(canonicalEventLine(event));
    }
  });
});
