import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBmpPixels, readBmpHeader } from "../../src/adapters/image/bmp-decoding.ts";
import { decodePnmPixels, readPnmHeader } from "../../src/adapters/image/pnm-decoding.ts";

/** BMP and PNM readers: every variant they accept decodes to the same pixels; bad headers are refused before allocating. */
const maxPixels = 40_000_000;
const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number>>) =>
  new Uint8Array(Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part)))));

const pnm = (data: Uint8Array) => {
  const reading = readPnmHeader(data, maxPixels);
  if (!reading.ok) throw new Error(reading.message);
  return decodePnmPixels(data, reading.header);
};

/** A 3×2 image: top row black, white, grey; bottom row white, black, white. */
const grey = [0, 255, 128, 255, 0, 255];

describe("PNM", () => {
  it("reads the same 3×2 grey image from P2 (text), P5 (binary) and P5 at 16 bits", () => {
    expect([...pnm(bytes("P2\n# a comment\n3 2\n255\n0 255 128\n255 0 255\n")).data]).toEqual(grey);
    expect([...pnm(bytes("P5 3 2 255\n", grey)).data]).toEqual(grey);
    const sixteen = grey.flatMap((v) => [((v * 257) >> 8) & 255, (v * 257) & 255]);
    expect([...pnm(bytes("P5\n3 2\n65535\n", sixteen)).data]).toEqual(grey);
  });

  it("reads PBM bits (1 is black) from P1, with or without spaces, and from P4 rows padded to bytes", () => {
    const expected = [0, 255, 0, 255, 0, 255];
    expect([...pnm(bytes("P1\n3 2\n1 0 1\n0 1 0\n")).data]).toEqual(expected);
    expect([...pnm(bytes("P1\n3 2\n101010\n")).data]).toEqual(expected);
    expect([...pnm(bytes("P4\n3 2\n", [0b10100000, 0b01000000])).data]).toEqual(expected);
  });

  it("reads P3 and P6 colour with a small maxval, scaled to 0-255", () => {
    const p3 = pnm(bytes("P3 1 2 15\n15 0 0\n0 15 7\n"));
    expect(p3.channels).toBe(3);
    expect([...p3.data]).toEqual([255, 0, 0, 0, 255, 119]);
    expect([...pnm(bytes("P6 1 2 15\n", [15, 0, 0, 0, 15, 7])).data]).toEqual([255, 0, 0, 0, 255, 119]);
  });

  it("refuses, from the header alone, sizes over the pixel limit, a maxval out of range, truncated pixels and runaway headers", () => {
    const problem = (text: string | Uint8Array) => {
      const reading = readPnmHeader(typeof text === "string" ? bytes(text) : text, maxPixels);
      return reading.ok ? "accepted" : reading.message;
    };
    expect(problem("P5 100000 100000 255\n")).toMatch(/megapixels/);
    expect(problem("P5 99999999999 1 255\n")).toMatch(/malformed/);
    expect(problem("P5 3 2 70000\n")).toMatch(/maxval/);
    expect(problem("P5 3 2 0\n")).toMatch(/maxval/);
    expect(problem("P6 3 2 255\n\0\0\0")).toMatch(/truncated/);
    expect(problem(bytes("P5\n#", "x".repeat(10_000), "\n3 2 255\n"))).toMatch(/malformed/);
    expect(() => pnm(bytes("P2 3 2 255\n0 255\n"))).toThrow(/fewer pixels/);
  });
});

/** A BMP file: 14-byte file header, 40-byte info header, optional palette or masks, then rows. */
const bmp = (options: {
  width: number;
  height: number;
  bits: number;
  compression?: number;
  palette?: ReadonlyArray<number>;
  masks?: ReadonlyArray<number>;
  rows: ReadonlyArray<ReadonlyArray<number>>;
}) => {
  const extra = Buffer.from([
    ...(options.masks ?? []).flatMap((mask) => [mask & 255, (mask >> 8) & 255, (mask >> 16) & 255, (mask >>> 24) & 255]),
    ...(options.palette ?? []),
  ]);
  const rowBytes = Math.floor((options.bits * options.width + 31) / 32) * 4;
  const pixels = Buffer.concat(options.rows.map((row) => Buffer.concat([Buffer.from(row), Buffer.alloc(rowBytes - row.length)])));
  const header = Buffer.alloc(54);
  header.write("BM", 0, "latin1");
  header.writeUInt32LE(54 + extra.length + pixels.length, 2);
  header.writeUInt32LE(54 + extra.length, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(options.width, 18);
  header.writeInt32LE(options.height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(options.bits, 28);
  header.writeUInt32LE(options.compression ?? 0, 30);
  header.writeUInt32LE((options.palette?.length ?? 0) / 4, 46);
  return new Uint8Array(Buffer.concat([header, extra, pixels]));
};

const decodeBmp = (data: Uint8Array) => {
  const reading = readBmpHeader(data, maxPixels);
  if (!reading.ok) throw new Error(reading.message);
  return [...decodeBmpPixels(data, reading.header).data];
};

/** 2×2: red, green (top row); blue, white (bottom row). */
const rgb = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255];

describe("BMP", () => {
  it("reads 24 bits bottom-up and top-down, 32 bits plain and with masks, 16 bits 5-5-5", () => {
    const bottomUp = bmp({
      width: 2,
      height: 2,
      bits: 24,
      rows: [
        [255, 0, 0, 255, 255, 255],
        [0, 0, 255, 0, 255, 0],
      ],
    });
    expect(decodeBmp(bottomUp)).toEqual(rgb);
    const topDown = bmp({
      width: 2,
      height: -2,
      bits: 24,
      rows: [
        [0, 0, 255, 0, 255, 0],
        [255, 0, 0, 255, 255, 255],
      ],
    });
    expect(decodeBmp(topDown)).toEqual(rgb);
    const bgrx = (r: number, g: number, b: number) => [b, g, r, 0];
    expect(
      decodeBmp(
        bmp({
          width: 2,
          height: 2,
          bits: 32,
          rows: [
            [...bgrx(0, 0, 255), ...bgrx(255, 255, 255)],
            [...bgrx(255, 0, 0), ...bgrx(0, 255, 0)],
          ],
        }),
      ),
    ).toEqual(rgb);
    // Masks: red in the low byte, blue in the high one.
    const masked = (r: number, g: number, b: number) => [r, g, b, 0];
    const withMasks = bmp({
      width: 2,
      height: 2,
      bits: 32,
      compression: 3,
      masks: [0xff, 0xff00, 0xff0000],
      rows: [
        [...masked(0, 0, 255), ...masked(255, 255, 255)],
        [...masked(255, 0, 0), ...masked(0, 255, 0)],
      ],
    });
    expect(decodeBmp(withMasks)).toEqual(rgb);
    const px555 = (r: number, g: number, b: number) => {
      const value = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
      return [value & 255, value >> 8];
    };
    expect(
      decodeBmp(
        bmp({
          width: 2,
          height: 2,
          bits: 16,
          rows: [
            [...px555(0, 0, 255), ...px555(255, 255, 255)],
            [...px555(255, 0, 0), ...px555(0, 255, 0)],
          ],
        }),
      ),
    ).toEqual(rgb);
  });

  it("reads 1, 4 and 8 bits through the palette", () => {
    const palette = [0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0]; // BGRA: red, green, blue, white
    expect(
      decodeBmp(
        bmp({
          width: 2,
          height: 2,
          bits: 8,
          palette,
          rows: [
            [2, 3],
            [0, 1],
          ],
        }),
      ),
    ).toEqual(rgb);
    expect(decodeBmp(bmp({ width: 2, height: 2, bits: 4, palette, rows: [[0x23], [0x01]] }))).toEqual(rgb);
    const mono = [0, 0, 0, 0, 255, 255, 255, 0];
    expect(decodeBmp(bmp({ width: 3, height: 1, bits: 1, palette: mono, rows: [[0b10100000]] }))).toEqual([255, 255, 255, 0, 0, 0, 255, 255, 255]);
  });

  it("refuses run-length compression, unknown depths, oversized or truncated images from the header", () => {
    const problem = (data: Uint8Array) => {
      const reading = readBmpHeader(data, maxPixels);
      return reading.ok ? "accepted" : reading.message;
    };
    expect(problem(bmp({ width: 2, height: 2, bits: 8, compression: 1, rows: [] }))).toMatch(/RLE8/);
    expect(problem(bmp({ width: 2, height: 2, bits: 2, rows: [] }))).toMatch(/bits per pixel/);
    expect(problem(bmp({ width: 100_000, height: 100_000, bits: 24, rows: [] }))).toMatch(/megapixels/);
    expect(problem(bmp({ width: 2, height: 2, bits: 24, rows: [[0, 0, 0, 0, 0, 0]] }))).toMatch(/truncated/);
    expect(problem(bmp({ width: 2, height: 2, bits: 8, palette: Array.from({ length: 257 * 4 }, () => 0), rows: [] }))).toMatch(/palette/);
  });
});

describe("any bytes", () => {
  // Headers with every field drawn at random (comments, separators, sizes, maxval), over data of random length.
  const pnmFiles = fc
    .record({
      magic: fc.integer({ min: 1, max: 6 }),
      comment: fc.constantFrom("", "# scanner\n", "#\n"),
      width: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 40 }), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: 10_000_000_000 }), weight: 1 }),
      height: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 40 }), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: 10_000_000_000 }), weight: 1 }),
      maxval: fc.oneof({ arbitrary: fc.constantFrom(1, 15, 255, 65535), weight: 4 }, { arbitrary: fc.constantFrom(0, 70_000), weight: 1 }),
      separator: fc.constantFrom(" ", "\n", "\t", "x"),
      body: fc.uint8Array({ maxLength: 10_000 }),
    })
    .map(({ magic, comment, width, height, maxval, separator, body }) => {
      const fields = magic === 1 || magic === 4 ? `${width} ${height}` : `${width} ${height} ${maxval}`;
      return new Uint8Array([...Buffer.from(`P${magic}\n${comment}${fields}${separator}`, "latin1"), ...body]);
    });

  it("are either refused by a header reader or decode within the bounds the header gave, never past the data", () => {
    const small = 1 << 16;
    let pnmDecoded = 0;
    fc.assert(
      fc.property(pnmFiles, (data) => {
        const reading = readPnmHeader(data, small);
        if (!reading.ok) return;
        expect(reading.header.width * reading.header.height).toBeLessThanOrEqual(small);
        pnmDecoded++;
        // Text pixels may be too few or malformed: that, and only that, is a throw.
        try {
          expect(decodePnmPixels(data, reading.header).data.length).toBeLessThanOrEqual(small * 3);
        } catch (error) {
          expect(reading.header.binary).toBe(false);
          expect(String(error)).toMatch(/fewer pixels/);
        }
      }),
      { numRuns: 2000 },
    );
    expect(pnmDecoded).toBeGreaterThan(20);
    // Headers with every field drawn at random, valid or not, over data of random length.
    const bmpHeaders = fc
      .record({
        infoSize: fc.oneof({ arbitrary: fc.constantFrom(12, 40, 56, 108, 124), weight: 5 }, { arbitrary: fc.constant(64), weight: 1 }),
        width: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: -5, max: 300 })),
        height: fc.oneof(fc.integer({ min: -20, max: 20 }), fc.integer({ min: -300, max: 300 })),
        bits: fc.oneof({ arbitrary: fc.constantFrom(1, 4, 8, 16, 24, 32), weight: 5 }, { arbitrary: fc.constantFrom(0, 2, 64), weight: 1 }),
        compression: fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: 7 }), weight: 1 }),
        colours: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300 })),
        // -1: just after the headers and a full palette, where writers put the pixels.
        dataOffset: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2000 })),
        body: fc.uint8Array({ minLength: 500, maxLength: 4000 }),
      })
      .map(({ infoSize, width, height, bits, compression, colours, dataOffset, body }) => {
        const head = Buffer.alloc(14 + Math.max(infoSize, 40));
        head.write("BM", 0, "latin1");
        head.writeUInt32LE(dataOffset >= 0 ? dataOffset : 14 + infoSize + (bits <= 8 ? (infoSize === 12 ? 3 : 4) * (colours || 2 ** bits) : 0), 10);
        head.writeUInt32LE(infoSize, 14);
        if (infoSize === 12) {
          head.writeUInt16LE(Math.abs(width), 18);
          head.writeUInt16LE(Math.abs(height), 20);
          head.writeUInt16LE(bits, 24);
        } else {
          head.writeInt32LE(width, 18);
          head.writeInt32LE(height, 22);
          head.writeUInt16LE(bits, 28);
          head.writeUInt32LE(compression, 30);
          head.writeUInt32LE(colours, 46);
        }
        return new Uint8Array(Buffer.concat([head, body]));
      });
    let decoded = 0;
    fc.assert(
      fc.property(bmpHeaders, (data) => {
        const reading = readBmpHeader(data, small);
        if (!reading.ok) return;
        decoded++;
        expect(reading.header.width * reading.header.height).toBeLessThanOrEqual(small);
        expect(decodeBmpPixels(data, reading.header).data.length).toBe(reading.header.width * reading.header.height * 3);
      }),
      { numRuns: 5000 },
    );
    // The generator reaches the decoder, not only refusals.
    expect(decoded).toBeGreaterThan(50);
  });
});
