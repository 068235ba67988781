import { describe, expect, it } from "vitest";
import { MAX_MEDIA_RANGES, negotiateFormat, negotiatesFormat, parseAccept } from "../../src/domain/negotiate-format.ts";

describe("parsing an Accept header", () => {
  it("reads each range with its weight, lower-cased, in order", () => {
    expect(parseAccept("image/AVIF, image/webp;q=0.9 ,*/*; q=0.8")).toEqual([
      { type: "image", subtype: "avif", q: 1 },
      { type: "image", subtype: "webp", q: 0.9 },
      { type: "*", subtype: "*", q: 0.8 },
    ]);
  });

  it("skips malformed elements and keeps the rest", () => {
    expect(parseAccept("image, /webp, */avif, image/webp;q=2, image/png;q=0.1234, , image/jpeg;q=0.5")).toEqual([{ type: "image", subtype: "jpeg", q: 0.5 }]);
  });

  it("does not split inside a quoted parameter value", () => {
    expect(parseAccept('image/webp;note="a, b\\"c";q=0.4, image/avif')).toEqual([
      { type: "image", subtype: "webp", q: 0.4 },
      { type: "image", subtype: "avif", q: 1 },
    ]);
  });

  it("reads hostile headers in linear time: sixteen times the text, far less than sixteen squared the time", () => {
    const bestOf7 = (header: string) =>
      Math.min(
        ...Array.from({ length: 7 }, () => {
          const started = performance.now();
          parseAccept(header);
          return performance.now() - started;
        }),
      );
    for (const unit of ["image/webp;q=0.5,", ",", "a/b;", 'image/webp;x="', "image/webp;q=0.5;x=\\,", "*/*;" + "q".repeat(50) + "=1;"]) {
      parseAccept(unit.repeat(64_000));
      const small = bestOf7(unit.repeat(4_000));
      const large = bestOf7(unit.repeat(64_000));
      expect(large, JSON.stringify(unit)).toBeLessThan(64 * small + 2);
    }
  });

  it(`keeps the first ${MAX_MEDIA_RANGES} ranges only`, () => {
    const ranges = parseAccept(`${"text/plain,".repeat(MAX_MEDIA_RANGES)}image/avif`);
    expect(ranges).toHaveLength(MAX_MEDIA_RANGES);
    expect(ranges.some((range) => range.subtype === "avif")).toBe(false);
  });
});

describe("choosing a result's format from Accept", () => {
  it.each([
    ["image/avif,image/webp,*/*", "avif"],
    ["image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "avif"],
    ["image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", "avif"],
    ["image/webp,*/*", "webp"],
    ["*/*", "jpeg"],
    ["image/*", "jpeg"],
    ["text/html", "jpeg"],
    ["", "jpeg"],
  ] as const)("%j gets %s", (accept, format) => {
    expect(negotiateFormat(accept)).toBe(format);
  });

  it("takes JPEG when there is no header", () => {
    expect(negotiateFormat(undefined)).toBe("jpeg");
  });

  it("orders by weight first, then by our preference AVIF, WebP, JPEG", () => {
    expect(negotiateFormat("image/avif;q=0.5,image/webp;q=0.8,*/*;q=0.1")).toBe("webp");
    expect(negotiateFormat("image/avif;q=0.5,image/jpeg;q=0.9")).toBe("jpeg");
    expect(negotiateFormat("image/jpeg,image/webp,image/avif")).toBe("avif");
    expect(negotiateFormat("image/jpeg;q=0.7,image/webp;q=0.7")).toBe("webp");
  });

  it("excludes what q=0 refuses, also when a wildcard would accept it", () => {
    expect(negotiateFormat("image/avif;q=0,image/webp,*/*")).toBe("webp");
    expect(negotiateFormat("image/avif;q=0,image/webp;q=0,*/*")).toBe("jpeg");
    expect(negotiateFormat("image/jpeg;q=0,image/webp;q=0.2,*/*")).toBe("webp");
    expect(negotiateFormat("image/*;q=0,image/avif")).toBe("avif");
  });

  it("lets the most specific range decide JPEG's weight", () => {
    expect(negotiateFormat("image/jpeg;q=0.1,image/*,image/webp;q=0.5")).toBe("webp");
    expect(negotiateFormat("image/*;q=0.9,*/*;q=0.1,image/webp;q=0.5")).toBe("jpeg");
  });

  it("falls back to JPEG when nothing it offers is acceptable", () => {
    expect(negotiateFormat("image/avif;q=0,image/webp;q=0,image/jpeg;q=0")).toBe("jpeg");
    expect(negotiateFormat("image/png")).toBe("jpeg");
  });
});

describe("which results negotiate", () => {
  it("JPEG results do; PNG, WebP and AVIF results keep their format", () => {
    expect(negotiatesFormat("jpeg")).toBe(true);
    expect([negotiatesFormat("png"), negotiatesFormat("webp"), negotiatesFormat("avif")]).toEqual([false, false, false]);
  });
});
