import { readFileSync } from "node:fs";
import sharp from "sharp";
import { thumbHashToRGBA } from "thumbhash";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { templateCrop } from "../../src/domain/crop-window.ts";
import { TEMPLATES } from "../../src/domain/template-catalog/template-catalog.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/** Issue 26 through real HTTPS: focus validated, crops placed by faces or a point, and what the response says. */
let service: ServiceProcess;
let astronaut: string;
let landscape: { readonly base64: string; readonly width: number; readonly height: number };

beforeAll(async () => {
  service = await startService();
  astronaut = readFileSync(new URL("../fixtures/tryon/astronaut.png", import.meta.url)).toString("base64");
  // The astronaut low and to the right on a wide grey canvas, 1800×900.
  const canvas = await sharp({ create: { width: 1800, height: 900, channels: 3, background: "#8a8f96" } })
    .composite([{ input: await sharp(Buffer.from(astronaut, "base64")).resize(360, 360).toBuffer(), left: 1300, top: 500 }])
    .jpeg()
    .toBuffer();
  landscape = { base64: canvas.toString("base64"), width: 1800, height: 900 };
});
afterAll(async () => service?.stop());

const generate = (key: string, body: unknown) => service.client.request("POST", "/api/generate", { key, body });

/** One template per shape a catalog template crops to. */
const SHAPES = [...new Map(TEMPLATES.filter((t) => templateCrop(t) !== null).map((t) => [t.output.width / t.output.height, t] as const)).values()];

describe("focus on /generate", () => {
  it("refuses a focus it does not know with 400 and the field named, and charges nothing", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    for (const focus of ["middle", { x: 1.5, y: 0.2 }, { x: 0.5 }, 3, { x: "0.5", y: 0.5 }]) {
      const reply = await generate(keys[0]!.key, { image: astronaut, template: "instagram-square", templateType: "social", focus });
      expect(reply.status, JSON.stringify(focus)).toBe(400);
      expect(reply.json.error.code).toBe("INVALID_REQUEST");
      expect(
        reply.json.error.details.some((d: { path: string }) => d.path.startsWith("focus")),
        JSON.stringify(reply.json.error),
      ).toBe(true);
    }
    const profile = await service.client.request("GET", "/api/user/profile", { key: keys[0]!.key });
    expect(profile.json.data.quota.used).toBe(0);
  });

  it("says where the crop went and why: the face found, its box, and a placeholder", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const reply = await generate(keys[0]!.key, { image: landscape.base64, template: "instagram-square", templateType: "social" });
    expect(reply.status).toBe(200);
    const { crop, faces, placeholder } = reply.json.data;
    expect(faces).toHaveLength(1);
    const face = faces[0].box;
    // The astronaut's face, scaled to 360 and placed at (1300, 500): about (1423, 552), 74 wide.
    expect(Math.abs(face.left - 1423)).toBeLessThan(12);
    expect(Math.abs(face.top - 552)).toBeLessThan(12);
    expect(crop).toMatchObject({ by: "face", top: 0, width: 900, height: 900 });
    expect(crop.left <= face.left && face.left + face.width <= crop.left + crop.width).toBe(true);
    expect(placeholder.blurhash).toMatch(/^[0-9A-Za-z#$%*+,.:;=?@[\]^_{|}~-]{28}$/);
    const thumb = thumbHashToRGBA(Buffer.from(placeholder.thumbhash, "base64"));
    expect(thumb.w / thumb.h).toBeCloseTo(1, 1);

    const old = await generate(keys[0]!.key, { image: landscape.base64, template: "instagram-square", templateType: "social", focus: "attention" });
    expect(old.json.data.crop.by).toBe("attention");
    expect(old.json.data.faces).toEqual([]);

    const none = await generate(keys[0]!.key, { image: landscape.base64, template: "grayscale", templateType: "filter" });
    expect(none.json.data.crop).toBeNull();
  });

  it("holds a focal point in the crop, in every template shape", async () => {
    const { keys } = await provisionAccount(service.env, "enterprise", Math.ceil((2 * SHAPES.length) / 12));
    const points = [
      { x: 0.04, y: 0.93 },
      { x: 0.88, y: 0.1 },
    ];
    let sent = 0;
    for (const template of SHAPES)
      for (const focus of points) {
        const key = keys[Math.floor(sent++ / 12)]!.key;
        const reply = await generate(key, { image: landscape.base64, template: template.template, templateType: template.templateType, focus });
        const name = `${template.template} at ${focus.x},${focus.y}`;
        expect(reply.status, name).toBe(200);
        const { crop } = reply.json.data;
        expect(crop.by, name).toBe("point");
        const [x, y] = [focus.x * landscape.width, focus.y * landscape.height];
        expect(crop.left <= x && x <= crop.left + crop.width && crop.top <= y && y <= crop.top + crop.height, `${name}: ${JSON.stringify(crop)}`).toBe(true);
      }
  });

  it("GET /templates says which templates crop, and with which focus", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const reply = await service.client.request("GET", "/api/templates", { key: keys[0]!.key });
    const byName = new Map(reply.json.data.templates.map((t: { template: string; crop: unknown }) => [t.template, t.crop]));
    expect(byName.get("instagram-square")).toEqual({ focus: "auto" });
    expect(byName.get("grayscale")).toBeNull();
  });
});
