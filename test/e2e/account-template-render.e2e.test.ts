import { Effect, ManagedRuntime } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TesseractOcrEngine } from "../../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import { OcrEngine } from "../../src/ports/engines/ocr-engine.ts";
import { queuedOcrEngineLayer } from "../../src/queued-ocr-engine.ts";
import { launchCard, logoPng, TEXT_BOX, textCard } from "../support/account-template-fixtures.ts";
import { cerCount, cerPercent } from "../support/character-error-rate.ts";
import { photoJpeg } from "../support/image-fixtures.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/** Issue 27: an account's template drawn by POST /generate, over real HTTPS, read back by pixels and by the project's OCR. */
let service: ServiceProcess;
let key: string;
let photo: string;

beforeAll(async () => {
  service = await startService({ env: { RATE_LIMIT_BURST: "10000", RATE_LIMIT_PER_MINUTE: "10000" } });
  key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
  photo = (await photoJpeg(800, 600)).toString("base64");
});
afterAll(async () => service?.stop());

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  service.client.request(method, `/api${path}`, { key, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
const fetchResult = async (url: string) => (await service.client.get(url)).body;

describe("POST /generate with templateType custom", () => {
  it("draws the design, metered and idempotent like every transformation; a result keeps the version it was made with", async () => {
    await call("POST", "/templates", launchCard("launch", await logoPng()));
    const used = async () => (await call("GET", "/user/profile")).json.data.quota.used as number;
    const before = await used();
    const body = { templateType: "custom", template: "launch", image: photo, text: { title: "Launch day" } };
    const first = await call("POST", "/generate", body, { "Idempotency-Key": "render-1" });
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ template: "launch", templateType: "custom", templateVersion: 1, format: "png", width: 1200, height: 630 });
    expect(first.json.data.placeholder.blurhash).toEqual(expect.any(String));
    const again = await call("POST", "/generate", body, { "Idempotency-Key": "render-1" });
    expect(again.json.data.requestId).toBe(first.json.data.requestId);
    expect(await used()).toBe(before + 1);
    const v1 = await fetchResult(first.json.data.resultUrl);

    await call("PUT", "/templates/launch", launchCard("launch", await logoPng(), "#660000"));
    const second = await call("POST", "/generate", body);
    expect(second.json.data.templateVersion).toBe(2);
    expect(Buffer.compare(await fetchResult(second.json.data.resultUrl), v1)).not.toBe(0);
    expect(Buffer.compare(await fetchResult(first.json.data.resultUrl), v1)).toBe(0);
    const { data } = await sharp(v1).raw().toBuffer({ resolveWithObject: true });
    // The v1 background (#0b1f3a) where nothing else is drawn, right of the title and above the rule.
    const at = (x: number, y: number) => [...data.subarray((y * 1200 + x) * 4, (y * 1200 + x) * 4 + 3)];
    expect(at(1190, 400)).toEqual([0x0b, 0x1f, 0x3a]);
  });

  it("refuses what the template does not have: a text or image layer name, a missing photo", async () => {
    await call("POST", "/templates", launchCard("refusals", await logoPng()));
    const reply = await call("POST", "/generate", { templateType: "custom", template: "refusals", text: { subtitle: "x" } });
    expect(reply.status).toBe(400);
    expect(reply.json.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["image", "text.subtitle"]);
  });

  it("keeps text of 1, 10, 60 and 400 characters inside its box (the pixels outside stay background), shrunk or cut with an ellipsis", async () => {
    await call("POST", "/templates", textCard("lengths", 16));
    const words = "Templates of your own draw text that fits the box it was given and nothing outside it ";
    for (const length of [1, 10, 60, 400]) {
      const text = words.repeat(6).slice(0, length);
      const reply = await call("POST", "/generate", { templateType: "custom", template: "lengths", text: { body: text } });
      expect(reply.status, `${length}`).toBe(200);
      const { data, info } = await sharp(await fetchResult(reply.json.data.resultUrl))
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      let outside = 0;
      let inked = 0;
      for (let y = 0; y < info.height; y++) {
        for (let x = 0; x < info.width; x++) {
          const dark = data[(y * info.width + x) * 3]! < 250;
          const inside = x >= TEXT_BOX.x && x < TEXT_BOX.x + TEXT_BOX.width && y >= TEXT_BOX.y && y < TEXT_BOX.y + TEXT_BOX.height;
          if (dark && !inside) outside++;
          if (dark && inside) inked++;
        }
      }
      expect({ length, outside }).toEqual({ length, outside: 0 });
      expect(inked, `${length}`).toBeGreaterThan(0);
    }
  });

  it("draws named variants in one call (data.results), one charge each, idempotent; a failure in any variant charges none", async () => {
    const card = launchCard("sizes", await logoPng());
    const title = card.layers[1]!;
    const badBadge = (await logoPng()).slice(0, 80);
    const story = {
      canvas: { width: 270, height: 480, background: "#0b1f3a", format: "png" },
      layers: [
        { type: "photo", box: { x: 0, y: 0, width: 270, height: 240 }, fit: "cover" },
        { ...title, box: { x: 15, y: 260, width: 240, height: 120 }, maxSize: 40, minSize: 10 },
        { type: "image", name: "badge", box: { x: 200, y: 420, width: 60, height: 40 }, image: await logoPng() },
      ],
    };
    const square = {
      canvas: { width: 300, height: 300, background: "#ffffff", format: "jpeg" },
      layers: [{ ...title, box: { x: 10, y: 10, width: 280, height: 280 } }],
    };
    expect((await call("POST", "/templates", { ...card, variants: { story, square } })).status).toBe(201);
    const used = async () => (await call("GET", "/user/profile")).json.data.quota.used as number;
    const before = await used();
    const body = { templateType: "custom", template: "sizes", image: photo, text: { title: "Launch day" }, variants: ["story", "default", "square"] };
    const first = await call("POST", "/generate", body, { "Idempotency-Key": "variants-1" });
    expect(first.status).toBe(200);
    const results = first.json.data.results as Array<{ variant: string; resultUrl: string; width: number; height: number; format: string }>;
    expect(results.map(({ variant, width, height, format }) => ({ variant, width, height, format }))).toEqual([
      { variant: "story", width: 270, height: 480, format: "png" },
      { variant: "default", width: 1200, height: 630, format: "png" },
      { variant: "square", width: 300, height: 300, format: "jpeg" },
    ]);
    expect(first.json.data).toMatchObject({ variant: "story", resultUrl: results[0]!.resultUrl, templateVersion: 1 });
    for (const { resultUrl, width, height } of results) expect(await sharp(await fetchResult(resultUrl)).metadata()).toMatchObject({ width, height });
    expect(await used()).toBe(before + 3);
    const again = await call("POST", "/generate", body, { "Idempotency-Key": "variants-1" });
    expect(again.json.data.requestId).toBe(first.json.data.requestId);
    expect(await used()).toBe(before + 3);

    // Refused before any work: an unknown or repeated variant; then a badge that does not decode, found while the
    // third layout is drawn after two were made: nothing is charged.
    const unknown = await call("POST", "/generate", { ...body, variants: ["default", "og", "default"] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.details).toEqual([
      { path: "variants.1", message: expect.stringContaining("default, story, square") },
      { path: "variants.2", message: expect.stringContaining("twice") },
    ]);
    const failed = await call("POST", "/generate", { ...body, variants: ["default", "square", "story"], images: { badge: badBadge } });
    expect({ status: failed.status, code: failed.json.error.code }).toEqual({ status: 422, code: "INVALID_IMAGE" });
    expect(await used()).toBe(before + 3);
    // Without variants: the default layout alone, one charge, no results.
    const plain = await call("POST", "/generate", { ...body, variants: undefined });
    expect(plain.json.data).toMatchObject({ width: 1200, height: 630 });
    expect(plain.json.data.results).toBeUndefined();
    expect(await used()).toBe(before + 4);
  });

  it("holds variants to what a template can have (the document's maxItems) and refuses them, text and images on a catalog template, charging nothing", async () => {
    const document = (await service.client.send("GET", "/api/openapi.json")).json;
    const { maxItems, minItems } = document.components.schemas.TemplateVariants as { maxItems: number; minItems: number };
    expect(document.components.schemas.CatalogGenerateRequest.properties.variants).toEqual({ $ref: "#/components/schemas/CatalogVariants" });
    // maxItems is the default layout and every variant a template may hold: as many as it holds are taken, one more is refused.
    const small = {
      canvas: { width: 32, height: 32, background: "#ffffff", format: "png" },
      layers: [{ type: "shape", box: { x: 0, y: 0, width: 8, height: 8 }, fill: "#000000" }],
    };
    const named = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`v${i}`, small]));
    expect((await call("POST", "/templates", { name: "many", ...small, variants: named(maxItems - 1) })).status).toBe(201);
    const over = await call("POST", "/templates", { name: "too-many", ...small, variants: named(maxItems) });
    expect(over.json.error.details).toEqual([{ path: "variants", message: expect.stringContaining(`the limit is ${maxItems - 1}`) }]);
    const used = async () => (await call("GET", "/user/profile")).json.data.quota.used as number;
    const before = await used();
    const names = ["default", ...Object.keys(named(maxItems - 1))];
    for (const variants of [[...names, "default"], []]) {
      const reply = await call("POST", "/generate", { templateType: "custom", template: "many", variants });
      expect({ length: variants.length, status: reply.status, code: reply.json.error.code }).toEqual({
        length: variants.length,
        status: 400,
        code: "INVALID_REQUEST",
      });
      expect(reply.json.error.details).toEqual([{ path: "variants", message: expect.stringContaining(`1 to ${maxItems}`) }]);
    }
    expect(minItems).toBe(1);
    // The custom form's own fields are refused on a catalog template, each named, rather than drawn without.
    for (const [field, value] of [
      ["variants", ["default"]],
      ["text", { title: "Launch day" }],
      ["images", { logo: photo }],
    ] as const) {
      const catalog = await call("POST", "/generate", { image: photo, template: "instagram-square", templateType: "social", [field]: value });
      expect(catalog.status, field).toBe(400);
      expect(catalog.json.error.details, field).toEqual([{ path: field, message: expect.stringContaining(`only templateType custom takes ${field}`) }]);
    }
    expect(await used()).toBe(before);
  });

  it("places text at the top, the middle or the bottom of its box (valign; top when left out)", async () => {
    const box = (x: number) => ({ x, y: 50, width: 280, height: 300 });
    const layer = (name: string, x: number, valign?: string) => ({
      type: "text",
      name,
      box: box(x),
      font: "DejaVu Sans",
      color: "#000000",
      maxSize: 40,
      minSize: 12,
      text: "Hi",
      ...(valign ? { valign } : {}),
    });
    const created = await call("POST", "/templates", {
      name: "valign",
      canvas: { width: 1200, height: 400, background: "#ffffff", format: "png" },
      layers: [layer("unset", 0), layer("top", 300, "top"), layer("middle", 600, "middle"), layer("bottom", 900, "bottom")],
    });
    expect(created.status).toBe(201);
    const reply = await call("POST", "/generate", { templateType: "custom", template: "valign" });
    const { data, info } = await sharp(await fetchResult(reply.json.data.resultUrl))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    /** The first and last rows with ink in the box at x, as distances from the box's top and bottom. */
    const inkRows = (x: number) => {
      const rows: Array<number> = [];
      for (let y = 0; y < info.height; y++) {
        for (let col = x; col < x + 280; col++) if (data[(y * info.width + col) * 3]! < 128) rows.push(y);
      }
      return { fromTop: Math.min(...rows) - 50, fromBottom: 350 - 1 - Math.max(...rows) };
    };
    const [unset, top, middle, bottom] = [0, 300, 600, 900].map(inkRows);
    expect(unset).toEqual(top);
    expect(top!.fromTop).toBeLessThan(20);
    expect(bottom!.fromBottom).toBeLessThan(20);
    expect(Math.abs(middle!.fromTop - middle!.fromBottom)).toBeLessThan(12);
    expect(top!.fromBottom).toBeGreaterThan(200);
    expect(bottom!.fromTop).toBeGreaterThan(200);
  });

  it("refuses emoji with a 400 naming each one, in a template's text and in a call's (no colour emoji font is installed)", async () => {
    const refused = await call("POST", "/templates", { ...textCard("emoji"), layers: [{ ...textCard("emoji").layers[0], text: "Launch 🚀 day" }] });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toEqual([{ path: "layers.0.text", message: expect.stringContaining('"🚀" (U+1F680)') }]);
    await call("POST", "/templates", textCard("emoji"));
    const called = await call("POST", "/generate", { templateType: "custom", template: "emoji", text: { body: "Party 🎉 © ☺" } });
    expect(called.status).toBe(400);
    expect(called.json.error.details).toEqual([{ path: "text.body", message: expect.stringContaining('"🎉" (U+1F389)') }]);
    expect((await call("POST", "/generate", { templateType: "custom", template: "emoji", text: { body: "Party © ☺ ✓" } })).status).toBe(200);
  });

  it("draws Latin text that the project's OCR reads back at a character error rate of 2 % or less", { timeout: 120_000 }, async () => {
    await call("POST", "/templates", {
      ...textCard("ocr", 24),
      canvas: { width: 1000, height: 400, background: "#ffffff", format: "png" },
      layers: [
        {
          type: "text",
          name: "body",
          box: { x: 40, y: 40, width: 920, height: 320 },
          font: "DejaVu Sans",
          color: "#000000",
          maxSize: 48,
          minSize: 24,
          text: "x",
        },
      ],
    });
    const truth = "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs!";
    const reply = await call("POST", "/generate", { templateType: "custom", template: "ocr", text: { body: truth } });
    const png = await fetchResult(reply.json.data.resultUrl);
    const runtime = ManagedRuntime.make(queuedOcrEngineLayer()(TesseractOcrEngine.layer()));
    try {
      const result = await runtime.runPromise(
        Effect.gen(function* () {
          const ocr = yield* OcrEngine;
          return yield* ocr.recognize({ image: { bytes: png, format: "png", width: 1000, height: 400 }, language: ["eng"], outputFormat: "text" });
        }),
      );
      const cer = cerPercent([cerCount(result.text, truth)]);
      console.log(`[account templates] OCR read ${JSON.stringify(result.text)}: CER ${cer.toFixed(2)} %`);
      expect(cer).toBeLessThanOrEqual(2);
    } finally {
      await runtime.dispose();
    }
  });
});
