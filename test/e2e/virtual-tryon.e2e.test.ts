import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fixtures from "../fixtures/tryon/tryon-fixtures.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/** POST /api/virtual-tryon through real HTTPS against the service process (docs/api-decisions.md). */
let service: ServiceProcess;
let personImage: string;
let clothingImage: string;

beforeAll(async () => {
  service = await startService();
  personImage = Buffer.from(await fixtures.astronautPortrait()).toString("base64");
  clothingImage = `data:image/png;base64,${Buffer.from(await fixtures.tshirt()).toString("base64")}`;
});
afterAll(async () => service?.stop());

const tryOn = (key: string, body: unknown) => service.client.request("POST", "/api/virtual-tryon", { key, body });
const used = async (key: string) => (await service.client.request("GET", "/api/user/profile", { key })).json.data.quota.used as number;

describe("POST /api/virtual-tryon", () => {
  it("answers a pro key with the documented shape; the result has the person image's size", async () => {
    const { keys } = await provisionAccount(service.env, "pro");
    const key = keys[0]!.key;
    const reply = await tryOn(key, { personImage, clothingImage, settings: { fitPreference: "loose" } });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      success: true,
      data: {
        resultUrl: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/api\/results\//),
        settings: { poseStyle: "original", lightingStyle: "original", fitPreference: "loose", backgroundStyle: "original", realismLevel: "standard" },
        processingTime: expect.any(Number),
        coverage: expect.any(Number),
        method: "garment-overlay-2d",
        confidence: expect.any(Number),
      },
    });
    expect(reply.json.data.confidence).toBeGreaterThan(0);
    expect(reply.json.data.confidence).toBeLessThanOrEqual(1);
    expect(reply.json.data.coverage).toBeGreaterThan(0.5);
    expect(reply.json.data.coverage).toBeLessThanOrEqual(1);
    const image = await service.client.get(reply.json.data.resultUrl);
    expect(image.status).toBe(200);
    const meta = await sharp(image.body).metadata();
    expect([meta.width, meta.height]).toEqual([768, 1024]);
    expect(await used(key)).toBe(1);
  });

  it("refuses a free key with 403 and uses no quota", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const reply = await tryOn(keys[0]!.key, { personImage, clothingImage });
    expect(reply.status).toBe(403);
    expect(reply.json.error.code).toBe("INSUFFICIENT_PERMISSIONS");
    expect(await used(keys[0]!.key)).toBe(0);
  });

  it("names the allowed values of an unknown setting (400), and refuses unusable photos with 422 at no cost", async () => {
    const { keys } = await provisionAccount(service.env, "pro");
    const key = keys[0]!.key;
    const bad = await tryOn(key, { personImage, clothingImage, settings: { lightingStyle: "neon", mood: "happy" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("INVALID_REQUEST");
    expect(bad.json.error.details.map((d: { path: string }) => d.path)).toEqual(["settings.lightingStyle", "settings.mood"]);
    expect(bad.json.error.message).toContain("original, studio, warm, cool, dramatic");

    const noPerson = await tryOn(key, { personImage: Buffer.from(fixtures.coffee()).toString("base64"), clothingImage });
    expect(noPerson.status).toBe(422);
    expect(noPerson.json.error).toMatchObject({ code: "NO_PERSON_DETECTED", details: [{ path: "personImage" }] });
    const turnedAway = await tryOn(key, { personImage: Buffer.from(await fixtures.astronautFaceCut()).toString("base64"), clothingImage });
    expect(turnedAway.status).toBe(422);
    expect(turnedAway.json.error).toMatchObject({ code: "PERSON_TURNED_AWAY", details: [{ path: "personImage" }] });
    expect(turnedAway.json.error.message).toContain("facing the camera");
    const noGarment = await tryOn(key, { personImage, clothingImage: Buffer.from(await fixtures.blank()).toString("base64") });
    expect(noGarment.status).toBe(422);
    expect(noGarment.json.error.code).toBe("NO_GARMENT_DETECTED");
    const trousers = await tryOn(key, { personImage, clothingImage: Buffer.from(await fixtures.trousers()).toString("base64") });
    expect(trousers.status).toBe(422);
    expect(trousers.json.error).toMatchObject({ code: "UNSUPPORTED_GARMENT", details: [{ path: "clothingImage" }] });
    expect(trousers.json.error.message).toContain("trousers");
    const missing = await tryOn(key, { personImage });
    expect(missing.status).toBe(400);
    expect(await used(key)).toBe(0);
  });
});
