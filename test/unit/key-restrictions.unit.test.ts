import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeBlockListAddressRanges } from "../../src/adapters/security/block-list-address-ranges.ts";
import { accountEventCodec } from "../../src/application/event-sourcing/events/account-events.ts";
import { parseDuration, parseExpiry } from "../../src/domain/duration.ts";
import { hasExpired, permitsScope, UNRESTRICTED } from "../../src/domain/key-restrictions.ts";
import type { RecordedEvent } from "../../src/ports/event-store.ts";

const now = new Date("2026-11-22T10:00:00.000Z");

describe("key restrictions", () => {
  it("reads durations as people write them, and expiries as a duration or an ISO-8601 time", () => {
    expect([parseDuration("4s"), parseDuration("30m"), parseDuration("24h"), parseDuration("30d"), parseDuration("2w")]).toEqual([
      4000, 1_800_000, 86_400_000, 2_592_000_000, 1_209_600_000,
    ]);
    for (const bad of ["", "4", "s", "0s", "-4s", "4 days", "1.5h", "4S"]) expect(parseDuration(bad)).toBeUndefined();
    expect(parseExpiry("30d", now)?.toISOString()).toBe("2026-12-22T10:00:00.000Z");
    expect(parseExpiry("2027-01-31T00:00:00Z", now)?.toISOString()).toBe("2027-01-31T00:00:00.000Z");
    expect(parseExpiry("2027-01-31", now)?.toISOString()).toBe("2027-01-31T00:00:00.000Z");
    for (const bad of ["tomorrow", "2027-13-45", "31/01/2027", "1738281600"]) expect(parseExpiry(bad, now)).toBeUndefined();
  });

  it("treats no restriction as none, an expiry as a boundary, and scopes as a list", () => {
    expect(permitsScope(UNRESTRICTED, "virtual-tryon")).toBe(true);
    expect(permitsScope({ ...UNRESTRICTED, scopes: ["ocr"] }, "ocr")).toBe(true);
    expect(permitsScope({ ...UNRESTRICTED, scopes: ["ocr"] }, "generate")).toBe(false);
    const expiring = { ...UNRESTRICTED, expiresAt: now.toISOString() };
    expect(hasExpired(expiring, now.getTime() - 1)).toBe(false);
    expect(hasExpired(expiring, now.getTime())).toBe(true);
    expect(hasExpired(UNRESTRICTED, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it("matches IPv4 and IPv6 ranges, IPv4-mapped client addresses included, and refuses what is not a range", () => {
    const ranges = makeBlockListAddressRanges();
    const allowed = ["203.0.113.0/24", "2001:db8::/32"].map((range) => ranges.normalize(range)!);
    expect(allowed).toEqual(["203.0.113.0/24", "2001:db8::/32"]);
    for (const address of ["203.0.113.77", "2001:db8::5", "::ffff:203.0.113.77", "2001:DB8:ffff::1"]) expect(ranges.contains(allowed, address)).toBe(true);
    for (const address of ["198.51.100.9", "2001:db9::1", "::ffff:198.51.100.9", "not-an-address", ""]) expect(ranges.contains(allowed, address)).toBe(false);
    expect(ranges.normalize("198.51.100.9")).toBe("198.51.100.9/32");
    expect(ranges.normalize("::1")).toBe("::1/128");
    for (const bad of ["203.0.113.0/33", "2001:db8::/129", "203.0.113/24", "10.0.0.0/8/8", "10.0.0.0/-1", "10.0.0.0/", "example.com", ""]) {
      expect(ranges.normalize(bad)).toBeUndefined();
    }
  });

  it("never throws on a client's address or an operator's range, whatever they hold, and normalises once for good", () => {
    const ranges = makeBlockListAddressRanges();
    const allowed = ["203.0.113.0/24", "2001:db8::/32"];
    const addressLike = fc.oneof(
      fc.string(),
      fc.ipV4(),
      fc.ipV6(),
      fc.tuple(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: -1, max: 200 })).map(([address, prefix]) => `${address}/${prefix}`),
    );
    fc.assert(
      fc.property(addressLike, (text) => {
        expect(typeof ranges.contains(allowed, text)).toBe("boolean");
        const once = ranges.normalize(text);
        if (once !== undefined) expect(ranges.normalize(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(fc.ipV4(), (address) => ranges.contains([ranges.normalize(address)!], address)));
    fc.assert(fc.property(fc.ipV6(), (address) => ranges.contains(["::/0"], address)));
  });

  it("reads a key issued before restrictions (schema version 1) as unrestricted", () => {
    const recorded: RecordedEvent = {
      streamName: "account-acc_1",
      streamRevision: 1,
      globalPosition: 2,
      eventId: "e",
      type: "ApiKeyIssued",
      data: { accountId: "acc_1", keyId: "k1", name: "ci", secretHash: "h", at: now.toISOString() },
      metadata: {},
      recordedAt: now,
    } as unknown as RecordedEvent;
    expect(accountEventCodec.decode(recorded)).toEqual({
      type: "ApiKeyIssued",
      data: { accountId: "acc_1", keyId: "k1", name: "ci", secretHash: "h", at: now.toISOString(), restrictions: UNRESTRICTED },
    });
  });
});
