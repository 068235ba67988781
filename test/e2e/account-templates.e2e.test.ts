import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchCard, logoPng } from "../support/account-template-fixtures.ts";
import { photoJpeg } from "../support/image-fixtures.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/** Issue 27 through real HTTPS: templates of an account's own, made, read, revised, deleted, refused. */
let service: ServiceProcess;
let logo: string;
let photo: string;

beforeAll(async () => {
  // Dozens of calls on a few keys: the rate limit is not what this suite is about.
  service = await startService({ env: { RATE_LIMIT_BURST: "10000", RATE_LIMIT_PER_MINUTE: "10000" } });
  logo = await logoPng();
  photo = (await photoJpeg(800, 600)).toString("base64");
});
afterAll(async () => service?.stop());

const call = (method: string, path: string, key: string, body?: unknown) =>
  service.client.request(method, `/api${path}`, { key, ...(body === undefined ? {} : { body }) });
const keyOf = async (plan: "free" | "pro" | "enterprise") => (await provisionAccount(service.env, plan)).keys[0]!.key;

describe("templates of the account's own over HTTPS", () => {
  it("creates (201, id, version 1), lists marked beside the catalog, reads by id and name, revises, deletes", async () => {
    const key = await keyOf("pro");
    const created = await call("POST", "/templates", key, launchCard("launch-card", logo));
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ id: expect.stringMatching(/^tpl_/), name: "launch-card", version: 1 });
    const id = created.json.data.id as string;

    const listed = (await call("GET", "/templates", key)).json.data.templates as Array<Record<string, unknown>>;
    expect(listed.filter((t) => t["own"] === true)).toEqual([expect.objectContaining({ id, template: "launch-card", templateType: "custom", version: 1 })]);
    expect(listed.some((t) => t["template"] === "instagram-square")).toBe(true);

    expect((await call("GET", `/templates/${id}`, key)).json.data).toMatchObject({ id, version: 1, canvas: { width: 1200 } });
    expect((await call("GET", "/templates/launch-card", key)).json.data.id).toBe(id);

    const revised = await call("PUT", `/templates/${id}`, key, launchCard("launch-card", logo, "#222222"));
    expect(revised.status).toBe(200);
    expect(revised.json.data).toMatchObject({ id, version: 2, canvas: { background: "#222222" } });

    const deleted = await call("DELETE", `/templates/${id}`, key);
    expect(deleted.json.data).toEqual({ id, name: "launch-card", version: 2, deleted: true });
    expect((await call("GET", `/templates/${id}`, key)).status).toBe(404);
  });

  it("lists the fonts a text layer may name at GET /templates/fonts: the same list a body's font is checked against", async () => {
    const key = await keyOf("free");
    const reply = await call("GET", "/templates/fonts", key);
    expect(reply.status).toBe(200);
    const fonts = reply.json.data.fonts as Array<{ family: string; scripts: Array<string> }>;
    expect(fonts.map((font) => font.family)).toEqual(expect.arrayContaining(["Noto Sans", "DejaVu Sans", "Noto Sans Arabic", "Noto Sans CJK TC"]));
    expect(fonts.find((font) => font.family === "Noto Sans Hebrew")?.scripts).toEqual(["Hebrew"]);
    // Every family listed is one a template may use; one not listed is refused, naming the list.
    const card = launchCard("fonts-listed", logo);
    const withFont = (font: string) => ({ ...card, layers: card.layers.map((layer) => (layer.type === "text" ? { ...layer, font } : layer)) });
    expect((await call("POST", "/templates", key, card)).status).toBe(201);
    for (const { family } of fonts) expect((await call("PUT", "/templates/fonts-listed", key, withFont(family))).status, family).toBe(200);
    const refused = await call("POST", "/templates", key, { ...withFont("Comic Sans MS"), name: "fonts-refused" });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toContainEqual({ path: "layers.1.font", message: expect.stringContaining(fonts.map((font) => font.family).join(", ")) });
    // "fonts" is the list's path, so no template may take it as its name.
    expect((await call("POST", "/templates", key, launchCard("fonts", logo))).json.error.details).toContainEqual({ path: "name", message: expect.any(String) });
  });

  it("keeps each account's templates to itself: to any other they do not exist", async () => {
    const [owner, other] = [await keyOf("pro"), await keyOf("pro")];
    const id = (await call("POST", "/templates", owner, launchCard("mine", logo))).json.data.id as string;
    for (const [method, body] of [["GET"], ["PUT", launchCard("mine", logo)], ["DELETE"]] as const) {
      const reply = await call(method, `/templates/${id}`, other, body);
      expect({ method, status: reply.status, code: reply.json.error.code }).toEqual({ method, status: 404, code: "NOT_FOUND" });
    }
    expect(((await call("GET", "/templates", other)).json.data.templates as Array<{ own?: boolean }>).some((t) => t.own)).toBe(false);
    const generated = await call("POST", "/generate", other, { templateType: "custom", template: id, image: photo });
    expect(generated.status).toBe(400);
    expect(generated.json.error.details).toEqual([{ path: "template", message: expect.stringContaining("No template") }]);
    expect((await call("GET", `/templates/${id}`, owner)).status).toBe(200);
  });

  it("holds a free account to 3 templates: the 4th is 403 TEMPLATE_LIMIT_REACHED naming the limit; a deletion frees a place", async () => {
    const key = await keyOf("free");
    const ids: Array<string> = [];
    for (const name of ["a", "b", "c"]) ids.push((await call("POST", "/templates", key, launchCard(name, logo))).json.data.id);
    const refused = await call("POST", "/templates", key, launchCard("d", logo));
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: "TEMPLATE_LIMIT_REACHED", message: expect.stringContaining("3 templates") });
    await call("DELETE", `/templates/${ids[0]}`, key);
    expect((await call("POST", "/templates", key, launchCard("d", logo))).status).toBe(201);
    const renamed = await call("PUT", `/templates/${ids[2]}`, key, launchCard("b", logo));
    expect({ status: renamed.status, code: renamed.json.error.code }).toEqual({ status: 409, code: "TEMPLATE_NAME_TAKEN" });
  });

  it("refuses every bad body with the field named", async () => {
    const key = await keyOf("enterprise");
    const card = launchCard("bad", logo);
    const withLayer = (index: number, change: Record<string, unknown>) => ({
      ...card,
      layers: card.layers.map((layer, i) => (i === index ? { ...layer, ...change } : layer)),
    });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>').toString("base64");
    const truncated = Buffer.from(logo, "base64").subarray(0, 60).toString("base64");
    const cases: ReadonlyArray<[string, unknown, number, string, string | undefined]> = [
      ["unknown layer type", withLayer(3, { type: "video" }), 400, "INVALID_REQUEST", "layers.3"],
      ["box outside the canvas", withLayer(1, { box: { x: 900, y: 0, width: 520, height: 260 } }), 400, "INVALID_REQUEST", "layers.1.box"],
      ["missing font", withLayer(1, { font: "Comic Sans MS" }), 400, "INVALID_REQUEST", "layers.1.font"],
      ["huge text", withLayer(1, { text: "word ".repeat(200) }), 400, "INVALID_REQUEST", "layers.1.text"],
      ["canvas too large", { ...card, canvas: { ...card.canvas, width: 20000 } }, 400, "INVALID_REQUEST", "canvas.width"],
      ["colour", withLayer(3, { fill: "yellow" }), 400, "INVALID_REQUEST", "layers.3.fill"],
      ["bad name", { ...card, name: "Launch Card!" }, 400, "INVALID_REQUEST", "name"],
      ["SVG logo", withLayer(2, { image: svg }), 422, "INVALID_IMAGE", undefined],
      ["undecodable logo", withLayer(2, { image: truncated }), 422, "INVALID_IMAGE", undefined],
    ];
    for (const [name, body, status, code, path] of cases) {
      const reply = await call("POST", "/templates", key, body);
      expect({ name, status: reply.status, code: reply.json.error?.code }).toEqual({ name, status, code });
      if (path !== undefined)
        expect(
          reply.json.error.details.map((d: { path: string }) => d.path),
          name,
        ).toContain(path);
    }
    // Each variant is drawn before it is kept too: its image's refusal names the field under variants.<name>.
    const badVariant = { ...card, variants: { og: { canvas: card.canvas, layers: [{ ...card.layers[2]!, image: truncated }] } } };
    const refusedVariant = await call("POST", "/templates", key, badVariant);
    expect({ status: refusedVariant.status, code: refusedVariant.json.error?.code }).toEqual({ status: 422, code: "INVALID_IMAGE" });
    expect(refusedVariant.json.error.message).toContain("variants.og.layers.0.image");
    expect(((await call("GET", "/templates", key)).json.data.templates as Array<{ own?: boolean }>).some((t) => t.own)).toBe(false);
  });
});
