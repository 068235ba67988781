import { Effect } from "effect";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { makeSharpImageEngine } from "../../src/adapters/image/sharp-image-engine.ts";
import { makeSharpImageInspector } from "../../src/adapters/image/sharp-image-inspector.ts";
import { type Template } from "../../src/domain/template-catalog/template.ts";
import { TEMPLATES } from "../../src/domain/template-catalog/template-catalog.ts";
import type { RenderedImage, ValidatedImage } from "../../src/ports/engines/image.ts";
import { ellipsePersonSegmenter } from "../support/ellipse-person-segmenter.ts";
import {
  alphaPng,
  animatedGif,
  cmykJpeg,
  dullJpeg,
  exifRotatedJpeg,
  noisyPng,
  palettePng,
  photoJpeg,
  PORTRAIT_SUBJECT,
  portraitJpeg,
  sixteenBitPng,
} from "../support/image-fixtures.ts";
import {
  cornerToCentreLuma,
  crop,
  decodeRgba,
  laplacianVariance,
  lumaStats,
  maxChannelSpread,
  meanAbsDiff,
  meanRgba,
  meanSaturation,
  pixelAt,
  type Pixels,
  shareNear,
} from "../support/pixels.ts";
import { DECODER_NAME, expectedSize } from "../support/template-expectations.ts";

/**
 * Every template of the catalog, run for real: on every kind of input it renders at the size and
 * in the format the catalog publishes, and it does measurably what its description says.
 */

const inspector = makeSharpImageInspector();
const segmenter = ellipsePersonSegmenter();
const engine = makeSharpImageEngine(segmenter.service);

const INPUTS = {
  photo: () => photoJpeg(1200, 800),
  // Wide, with the person right of centre: a centre crop to a tall format misses them.
  portrait: () => portraitJpeg(2400, 800),
  cmyk: () => cmykJpeg(600, 400),
  sixteenBit: () => sixteenBitPng(600, 400),
  palette: () => palettePng(600, 400),
  alpha: () => alphaPng(600, 400),
  animatedGif: () => animatedGif(200, 150),
  exifRotated: () => exifRotatedJpeg(800, 500),
  dull: () => dullJpeg(),
  noisy: () => noisyPng(),
} as const;
type InputName = keyof typeof INPUTS;
/** The inputs every template must cope with; dull and noisy exist for the enhance checks. */
const EVERY_KIND: ReadonlyArray<InputName> = ["photo", "portrait", "cmyk", "sixteenBit", "palette", "alpha", "animatedGif", "exifRotated"];

const images = {} as Record<InputName, ValidatedImage>;
const decodedInputs = {} as Record<InputName, Pixels>;
beforeAll(async () => {
  for (const name of Object.keys(INPUTS) as Array<InputName>) {
    images[name] = await Effect.runPromise(inspector.inspect(await INPUTS[name]()));
    // The input as displayed (EXIF applied), for before/after comparisons.
    decodedInputs[name] = await decodeRgba(await sharp(images[name].bytes, { autoOrient: true }).png().toBuffer());
  }
});

const render = (template: Template, input: InputName): Promise<RenderedImage> => Effect.runPromise(engine.render(images[input], template));

const SKIN = [232, 184, 144] as const;
const luma = ([r, g, b]: readonly number[]) => 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);

interface Rendered {
  readonly template: Template;
  readonly input: Pixels;
  readonly output: Pixels;
  readonly image: RenderedImage;
}

/** What each template must measurably do, and on which input it is measured. */
type Effect_ = { readonly on: InputName; readonly check: (r: Rendered) => void | Promise<void> };

const keepsSubject: Effect_ = {
  on: "portrait",
  check: async ({ template, output }) => {
    const skin = shareNear(output, SKIN, 30);
    expect(skin).toBeGreaterThan(0.002);
    // Compared with the same crop taken at the centre, the subject is at least as present.
    const first = template.steps[0];
    if (first?.op !== "resize") throw new Error("expected a leading resize");
    const centred = await decodeRgba((await render({ ...template, steps: [{ ...first, position: "centre" }, ...template.steps.slice(1)] }, "portrait")).bytes);
    const centredSkin = shareNear(centred, SKIN, 30);
    if (template.output.width <= template.output.height) expect(skin).toBeGreaterThan(centredSkin + 0.005);
    else expect(skin).toBeGreaterThanOrEqual(centredSkin * 0.9);
  },
};

const transparentOutside = (inset: number): Effect_ => ({
  on: "portrait",
  check: ({ output }) => {
    const { width: w, height: h } = output;
    for (const [x, y] of [
      [1, 1],
      [w - 2, 1],
      [1, h - 2],
      [w - 2, h - 2],
    ] as const)
      expect(pixelAt(output, x, y)[3]).toBe(0);
    expect(pixelAt(output, w / 2, h / 2)[3]).toBe(255);
    // Edge midpoints stay opaque: only the corners were cut.
    for (const [x, y] of [
      [w / 2, inset],
      [inset, h / 2],
      [w - 1 - inset, h / 2],
      [w / 2, h - 1 - inset],
    ] as const)
      expect(pixelAt(output, x, y)[3]).toBe(255);
  },
});

const border = (width: number, colour: readonly [number, number, number], tolerance = 6): Effect_ => ({
  on: "photo",
  check: ({ output }) => {
    const ring = [
      crop(output, 0, 0, output.width, width - 2),
      crop(output, 0, output.height - width + 2, output.width, width - 2),
      crop(output, 0, 0, width - 2, output.height),
      crop(output, output.width - width + 2, 0, width - 2, output.height),
    ];
    for (const band of ring) expect(shareNear(band, colour, tolerance)).toBeGreaterThan(0.99);
    expect(shareNear(crop(output, width + 10, width + 10, output.width - 2 * width - 20, output.height - 2 * width - 20), colour, tolerance)).toBeLessThan(0.5);
  },
});

const sameContent: Effect_ = {
  on: "photo",
  check: ({ input, output }) => {
    expect([output.width, output.height]).toEqual([input.width, input.height]);
    expect(meanAbsDiff(input, output)).toBeLessThan(6);
  },
};

const insideSubject = (output: Pixels) => {
  const { cx, cy, ry } = PORTRAIT_SUBJECT;
  // The body: the lower half of the figure, well inside the segmenter's ellipse.
  return pixelAt(output, cx * output.width, (cy + ry * 0.45) * output.height);
};

const EFFECTS: Readonly<Record<string, Effect_>> = {
  "social/instagram-square": keepsSubject,
  "social/instagram-portrait": keepsSubject,
  "social/instagram-story": keepsSubject,
  "social/facebook-post": keepsSubject,
  "social/facebook-cover": keepsSubject,
  "social/twitter-post": keepsSubject,
  "social/twitter-header": keepsSubject,
  "social/linkedin-banner": keepsSubject,
  "social/youtube-thumbnail": keepsSubject,
  "social/pinterest-pin": keepsSubject,

  "avatar/square": keepsSubject,
  "avatar/square-large": keepsSubject,
  "avatar/circle": {
    on: "portrait",
    check: async (r) => {
      transparentOutside(2).check(r);
      // Just outside the circle, on the diagonal, everything is transparent.
      expect(pixelAt(r.output, 50, 50)[3]).toBe(0);
      await keepsSubject.check(r);
    },
  },
  "avatar/circle-webp": {
    on: "portrait",
    check: async (r) => {
      transparentOutside(2).check(r);
      expect(pixelAt(r.output, 50, 50)[3]).toBeLessThan(10);
    },
  },
  "avatar/rounded": {
    on: "portrait",
    check: (r) => {
      transparentOutside(2).check(r);
      // A corner radius of 80 px: (10, 10) is cut, (80, 2) on the top edge is not.
      expect(pixelAt(r.output, 10, 10)[3]).toBe(0);
      expect(pixelAt(r.output, 85, 2)[3]).toBe(255);
    },
  },

  "filter/grayscale": {
    on: "photo",
    check: ({ input, output }) => {
      expect(maxChannelSpread(input)).toBeGreaterThan(100);
      expect(maxChannelSpread(output)).toBeLessThanOrEqual(8);
    },
  },
  "filter/sepia": {
    on: "photo",
    check: ({ output }) => {
      const [r, g, b] = meanRgba(output);
      expect(r).toBeGreaterThan(g + 10);
      expect(g).toBeGreaterThan(b + 10);
    },
  },
  "filter/vintage": {
    on: "photo",
    check: ({ input, output }) => {
      const [r, g, b] = meanRgba(output);
      expect(r).toBeGreaterThan(g);
      expect(g).toBeGreaterThan(b);
      expect(cornerToCentreLuma(output)).toBeLessThan(cornerToCentreLuma(input) * 0.85);
    },
  },
  "filter/noir": {
    on: "photo",
    check: ({ input, output }) => {
      expect(maxChannelSpread(output)).toBeLessThanOrEqual(8);
      expect(lumaStats(output).std).toBeGreaterThan(lumaStats(input).std * 1.1);
      expect(cornerToCentreLuma(output)).toBeLessThan(cornerToCentreLuma(input) * 0.8);
    },
  },
  "filter/vivid": { on: "photo", check: ({ input, output }) => expect(meanSaturation(output)).toBeGreaterThan(meanSaturation(input) * 1.15) },
  "filter/warm": {
    on: "photo",
    check: ({ input, output }) => {
      const [ri, , bi] = meanRgba(input);
      const [ro, , bo] = meanRgba(output);
      expect(ro / bo).toBeGreaterThan((ri / bi) * 1.15);
    },
  },
  "filter/cool": {
    on: "photo",
    check: ({ input, output }) => {
      const [ri, , bi] = meanRgba(input);
      const [ro, , bo] = meanRgba(output);
      expect(bo / ro).toBeGreaterThan((bi / ri) * 1.15);
    },
  },
  "filter/fade": {
    on: "photo",
    check: ({ input, output }) => {
      expect(lumaStats(output).p1).toBeGreaterThan(lumaStats(input).p1 + 20);
      expect(meanSaturation(output)).toBeLessThan(meanSaturation(input) * 0.9);
    },
  },
  "filter/invert": {
    on: "photo",
    check: ({ input, output }) => {
      const before = meanRgba(input);
      const after = meanRgba(output);
      for (const c of [0, 1, 2]) expect(Math.abs((after[c] ?? 0) - (255 - (before[c] ?? 0)))).toBeLessThan(4);
    },
  },

  "enhance/auto-level": {
    on: "dull",
    check: ({ input, output }) => {
      const before = lumaStats(input);
      const after = lumaStats(output);
      expect(after.p99 - after.p1).toBeGreaterThan((before.p99 - before.p1) * 1.6);
    },
  },
  "enhance/local-contrast": {
    on: "dull",
    check: ({ input, output }) => expect(lumaStats(output).std).toBeGreaterThan(lumaStats(input).std * 1.2),
  },
  "enhance/sharpen": { on: "photo", check: ({ input, output }) => expect(laplacianVariance(output)).toBeGreaterThan(laplacianVariance(input) * 1.3) },
  "enhance/denoise": { on: "noisy", check: ({ input, output }) => expect(laplacianVariance(output)).toBeLessThan(laplacianVariance(input) * 0.5) },
  "enhance/brighten": { on: "photo", check: ({ input, output }) => expect(lumaStats(output).mean).toBeGreaterThan(lumaStats(input).mean * 1.15) },

  "frame/polaroid": {
    on: "photo",
    check: ({ output }) => {
      const card = [251, 251, 248] as const;
      expect(shareNear(crop(output, 0, 0, output.width, 28), card, 6)).toBeGreaterThan(0.99);
      expect(shareNear(crop(output, 0, output.height - 118, output.width, 118), card, 6)).toBeGreaterThan(0.99);
      expect(shareNear(crop(output, 40, 40, 580, 580), card, 6)).toBeLessThan(0.5);
    },
  },
  "frame/rounded-corners": transparentOutside(2),
  "frame/drop-shadow": {
    on: "photo",
    check: ({ output }) => {
      const { width: w, height: h } = output;
      // Transparent margin at the far corners, shadow below-right of the print, none above-left.
      expect(pixelAt(output, 1, 1)[3]).toBe(0);
      expect(pixelAt(output, w - 2, 2)[3]).toBe(0);
      const belowRight = pixelAt(output, w - 40 + 8, h - 40 + 8);
      expect(belowRight[3]).toBeGreaterThan(40);
      expect(luma(belowRight)).toBeLessThan(40);
      expect(pixelAt(output, 40 - 8, 40 - 8)[3]).toBeLessThan(belowRight[3] / 4);
      expect(pixelAt(output, w / 2, h / 2)[3]).toBe(255);
    },
  },
  "frame/border-white": border(40, [255, 255, 255]),
  "frame/border-black": border(40, [0, 0, 0]),
  "frame/gallery-mat": {
    on: "photo",
    check: ({ output }) => {
      expect(shareNear(crop(output, 0, 0, output.width, 78), [244, 241, 234], 6)).toBeGreaterThan(0.99);
      expect(shareNear(crop(output, 100, 81, output.width - 200, 2), [51, 51, 51], 12)).toBeGreaterThan(0.95);
    },
  },

  "thumbnail/small": keepsSubject,
  "thumbnail/medium": keepsSubject,
  "thumbnail/large": keepsSubject,
  "thumbnail/preview-avif": {
    on: "photo",
    check: ({ input, output }) => {
      const small = crop(input, 0, 0, input.width, input.height);
      expect(output.width / output.height).toBeCloseTo(small.width / small.height, 2);
    },
  },

  "format/webp": sameContent,
  "format/avif": sameContent,
  "format/jpeg": sameContent,
  "format/png": { on: "photo", check: ({ input, output }) => expect(meanAbsDiff(input, output)).toBe(0) },

  "background/remove": {
    on: "portrait",
    check: ({ output }) => {
      for (const [x, y] of [
        [1, 1],
        [output.width - 2, output.height - 2],
      ] as const)
        expect(pixelAt(output, x, y)[3]).toBe(0);
      expect(insideSubject(output)[3]).toBe(255);
    },
  },
  "background/remove-webp": {
    on: "portrait",
    check: ({ output }) => {
      expect(pixelAt(output, 1, 1)[3]).toBeLessThan(5);
      expect(insideSubject(output)[3]).toBeGreaterThan(250);
    },
  },
  "background/white": {
    on: "portrait",
    check: ({ input, output }) => {
      expect(shareNear(crop(output, 0, 0, output.width / 4, output.height), [255, 255, 255], 4)).toBeGreaterThan(0.99);
      const body = insideSubject(output);
      const original = insideSubject(input);
      for (const c of [0, 1, 2]) expect(Math.abs((body[c] ?? 0) - (original[c] ?? 0))).toBeLessThan(10);
    },
  },
  "background/blur": {
    on: "portrait",
    check: async ({ template, output }) => {
      // Against the same template without the blur (same scale): the background, left of the
      // person, loses its stripes; the person keeps their detail.
      const unblurred = { ...template, steps: template.steps.filter((step) => step.op !== "blurBackground") };
      const reference = await decodeRgba((await render(unblurred, "portrait")).bytes);
      const background = (p: Pixels) => crop(p, 0, 0, Math.floor(p.width * 0.4), p.height);
      expect(laplacianVariance(background(output))).toBeLessThan(laplacianVariance(background(reference)) * 0.2);
      const { cx, cy } = PORTRAIT_SUBJECT;
      const face = (p: Pixels) => crop(p, Math.floor(cx * p.width - 60), Math.floor((cy - 0.2) * p.height), 120, 120);
      expect(meanAbsDiff(face(output), face(reference))).toBeLessThan(2);
    },
  },
  "background/white-square": {
    on: "portrait",
    check: ({ output }) => {
      // 2400×800 contained in a square: white bands above and below, and white around the person.
      expect(shareNear(crop(output, 0, 0, output.width, 300), [255, 255, 255], 4)).toBeGreaterThan(0.99);
      expect(shareNear(crop(output, 0, 400, 300, 200), [255, 255, 255], 4)).toBeGreaterThan(0.99);
      expect(shareNear(output, SKIN, 30)).toBeGreaterThan(0.002);
    },
  },
};

describe("the template catalog, rendered", () => {
  it("has an effect check for every template", () => {
    expect(Object.keys(EFFECTS).sort()).toEqual(TEMPLATES.map((t) => `${t.templateType}/${t.template}`).sort());
  });

  describe.each(TEMPLATES.map((t) => [`${t.templateType}/${t.template}`, t] as const))("%s", (key, template) => {
    it("renders every kind of input at the published size and format", async () => {
      for (const input of EVERY_KIND) {
        const out = await render(template, input);
        const metadata = await sharp(out.bytes).metadata();
        const expected = expectedSize(template.steps, images[input].width, images[input].height);
        const where = `${key} on ${input}`;
        expect(metadata.format, where).toBe(DECODER_NAME[template.output.format]);
        expect(out.format, where).toBe(template.output.format);
        expect([metadata.width, metadata.height], where).toEqual([out.width, out.height]);
        expect(Math.abs(out.width - expected.width), where).toBeLessThanOrEqual(1);
        expect(Math.abs(out.height - expected.height), where).toBeLessThanOrEqual(1);
        expect(out.width, where).toBeLessThanOrEqual(template.output.width);
        expect(out.height, where).toBeLessThanOrEqual(template.output.height);
      }
    });

    it("does what it says", async () => {
      const effect = EFFECTS[key];
      if (!effect) throw new Error(`no effect check for ${key}`);
      const image = await render(template, effect.on);
      await effect.check({ template, image, input: decodedInputs[effect.on], output: await decodeRgba(image.bytes) });
    });
  });

  it("asks the segmenter only for background templates", async () => {
    const before = segmenter.calls();
    for (const template of TEMPLATES) await render(template, "palette");
    expect(segmenter.calls() - before).toBe(TEMPLATES.filter((t) => t.templateType === "background").length);
  });
});
