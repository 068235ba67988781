import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { Effect, Option } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresResultStoreLayer } from "../../src/adapters/results/postgres-result-store.ts";
import type { OutputFormat } from "../../src/domain/template-catalog/template.ts";
import { ResultStore, type StoredResult } from "../../src/ports/result-store.ts";
import { launchCard, logoPng } from "../support/account-template-fixtures.ts";
import type { Reply } from "../support/https-client.ts";
import { photoPng } from "../support/image-fixtures.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";
import { makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Result URLs in the format the browser takes (docs/api.md, Result formats): two service processes on one
 * PostgreSQL result store, over HTTPS. The store is read here too, to see each variant made once
 * and kept, and that the other instance serves the kept one instead of transcoding again.
 */
const schema = freshSchemaName("its_e2e_formats");
const namespace = testNamespace();
const shared = {
  EVENT_STORE: "postgres",
  DATABASE_URL: `${postgresUrl}?schema=${schema}`,
  RESULT_STORE: "postgres",
  SERVER_SECRET: `result-formats-${randomUUID()}`,
  NATS_URL,
  NATS_NAMESPACE: namespace,
};

let first: ServiceProcess;
let second: ServiceProcess;
let cli: Record<string, string>;
let key: string;

const AVIF_FIRST = "image/avif,image/webp,*/*";

/** The stored variant, read from the store the instances share. */
const storedVariant = (resultId: string, format: OutputFormat): Promise<Option.Option<StoredResult>> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        return yield* (yield* ResultStore).getVariant(resultId, format, new Date());
      }).pipe(Effect.provide(postgresResultStoreLayer({ connectionString: postgresUrl, schema, poolSize: 1 }))),
    ),
  );

const replaceVariant = (variant: { resultId: string; format: OutputFormat; bytes: Uint8Array; contentType: string; expiresAt: Date }) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        yield* (yield* ResultStore).putVariant(variant);
      }).pipe(Effect.provide(postgresResultStoreLayer({ connectionString: postgresUrl, schema, poolSize: 1 }))),
    ),
  );

/** A result URL's path and query, as sent to an instance (the load balancer's pick). */
const pathOf = (resultUrl: string) => {
  const url = new URL(resultUrl);
  return url.pathname + url.search;
};

const fetchResult = (instance: ServiceProcess, path: string, accept?: string): Promise<Reply> =>
  instance.client.request("GET", path, accept === undefined ? {} : { headers: { Accept: accept } });

const timed = async <A>(run: () => Promise<A>): Promise<{ value: A; ms: number }> => {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
};

/** A fresh 1080×1080 JPEG result (instagram-square of a 1200×900 photo): its id and URL path. */
const makeResult = async () => {
  const image = (await photoPng(1200, 900)).toString("base64");
  const made = await first.client.request("POST", "/api/generate", { key, body: { image, template: "instagram-square", templateType: "social" } });
  expect(made.status).toBe(200);
  expect(made.json.data).toMatchObject({ format: "jpeg", width: 1080, height: 1080 });
  const url = new URL(made.json.data.resultUrl);
  return { resultId: url.pathname.split("/").at(-1)!, path: pathOf(url.href), expiresAt: new Date(made.json.data.expiresAt) };
};

beforeAll(async () => {
  [first, second] = await Promise.all([startService({ env: shared }), startService({ env: shared })]);
  cli = { ...shared, DATA_DIR: makeDataDir() };
  key = (await provisionAccount(cli, "enterprise")).keys[0]!.key;
}, 240_000);

afterAll(async () => {
  for (const instance of [first, second]) {
    await instance?.stop();
    if (instance) fs.rmSync(instance.dataDir, { recursive: true, force: true });
  }
  if (cli) fs.rmSync(cli["DATA_DIR"]!, { recursive: true, force: true });
  await dropSchemas([schema]);
  await dropNatsNamespace(namespace);
});

describe("a result URL serves the format the browser takes", () => {
  it("AVIF, WebP or JPEG by the Accept header, each with Vary: Accept; the second fetch of a variant comes from the store", async () => {
    const { resultId, path } = await makeResult();
    expect(Option.isNone(await storedVariant(resultId, "avif"))).toBe(true);

    const firstAvif = await timed(() => fetchResult(first, path, AVIF_FIRST));
    const avif = firstAvif.value;
    expect(avif.status).toBe(200);
    expect(avif.headers["content-type"]).toBe("image/avif");
    expect(avif.headers.vary).toBe("Accept");
    expect(avif.body.subarray(4, 12).toString("latin1")).toBe("ftypavif");
    expect(await sharp(avif.body).metadata()).toMatchObject({ format: "heif", width: 1080, height: 1080 });
    // Made once and kept: the store holds exactly what was served.
    const kept = await storedVariant(resultId, "avif");
    expect(Buffer.from(Option.getOrThrow(kept).bytes).equals(avif.body)).toBe(true);

    const storedAvif = await timed(() => fetchResult(first, path, AVIF_FIRST));
    expect(storedAvif.value.body.equals(avif.body)).toBe(true);
    console.log(
      `[result formats] AVIF of a 1080² result: first fetch (transcode) ${firstAvif.ms.toFixed(0)} ms, ` +
        `second (from the store) ${storedAvif.ms.toFixed(0)} ms; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
    );

    const webp = await fetchResult(first, path, "image/webp,*/*");
    expect([webp.status, webp.headers["content-type"], webp.headers.vary]).toEqual([200, "image/webp", "Accept"]);
    expect(webp.body.subarray(8, 12).toString("latin1")).toBe("WEBP");
    expect(await sharp(webp.body).metadata()).toMatchObject({ format: "webp", width: 1080, height: 1080 });

    for (const accept of ["*/*", undefined]) {
      const jpeg = await fetchResult(first, path, accept);
      expect([jpeg.status, jpeg.headers["content-type"], jpeg.headers.vary]).toEqual([200, "image/jpeg", "Accept"]);
      expect(jpeg.body.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    }
    // JPEG is the result itself: no variant of it is made.
    expect(Option.isNone(await storedVariant(resultId, "jpeg"))).toBe(true);
  });

  it("takes ?format= over the Accept header, on the same signature, and refuses a format it does not serve with 400", async () => {
    const { path } = await makeResult();
    const webp = await fetchResult(first, `${path}&format=webp`, AVIF_FIRST);
    expect([webp.status, webp.headers["content-type"], webp.headers.vary]).toEqual([200, "image/webp", undefined]);
    const png = await fetchResult(first, `${path}&format=png`);
    expect([png.status, png.headers["content-type"]]).toEqual([200, "image/png"]);
    expect(await sharp(png.body).metadata()).toMatchObject({ format: "png", width: 1080, height: 1080 });

    const refused = await fetchResult(first, `${path}&format=gif`, AVIF_FIRST);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ success: false, error: { code: "INVALID_REQUEST", details: [{ path: "format" }] } });
    // The signature still guards the result: format= cannot open another one.
    const tampered = await fetchResult(first, `${path.replace(/signature=[^&]+/, `signature=${"A".repeat(43)}`)}&format=webp`);
    expect(tampered.status).toBe(403);
  });

  it("keeps a PNG result (transparency) a PNG whatever the Accept header, and says which templates negotiate", async () => {
    const image = (await photoPng(600, 600)).toString("base64");
    const made = await first.client.request("POST", "/api/generate", { key, body: { image, template: "circle", templateType: "avatar" } });
    expect(made.status).toBe(200);
    const png = await fetchResult(first, pathOf(made.json.data.resultUrl), AVIF_FIRST);
    expect([png.status, png.headers["content-type"], png.headers.vary]).toEqual([200, "image/png", undefined]);

    const templates = (await first.client.request("GET", "/api/templates", { key })).json.data.templates as Array<{
      template: string;
      output: { format: string };
      negotiatesFormat: boolean;
      autoFormat: boolean;
    }>;
    for (const t of templates) expect(t.negotiatesFormat).toBe(t.output.format === "jpeg");
    expect(templates.filter((t) => !t.autoFormat).map((t) => t.template)).toEqual([
      "circle",
      "circle-webp",
      "rounded",
      "rounded-corners",
      "drop-shadow",
      "png",
      "remove",
      "remove-webp",
    ]);
    expect(templates.find((t) => t.template === "instagram-square")?.negotiatesFormat).toBe(true);
    expect(templates.find((t) => t.template === "circle")?.negotiatesFormat).toBe(false);
  });

  it('lets format "auto" make a WebP template\'s result negotiate, kept as a JPEG; a transparent template refuses it with 400', async () => {
    const image = (await photoPng(800, 600)).toString("base64");
    const made = await first.client.request("POST", "/api/generate", {
      key,
      body: { image, template: "medium", templateType: "thumbnail", format: "auto" },
    });
    expect(made.status).toBe(200);
    expect(made.json.data).toMatchObject({ format: "jpeg", width: 320, height: 320 });
    const path = pathOf(made.json.data.resultUrl);
    for (const [accept, contentType] of [
      [AVIF_FIRST, "image/avif"],
      ["image/webp,*/*", "image/webp"],
      ["*/*", "image/jpeg"],
    ] as const) {
      const served = await fetchResult(first, path, accept);
      expect([served.status, served.headers["content-type"], served.headers.vary]).toEqual([200, contentType, "Accept"]);
      expect(await sharp(served.body).metadata()).toMatchObject({ width: 320, height: 320 });
    }

    // Without format the template keeps its WebP, whatever the browser takes.
    const plain = await first.client.request("POST", "/api/generate", { key, body: { image, template: "medium", templateType: "thumbnail" } });
    const webp = await fetchResult(first, pathOf(plain.json.data.resultUrl), AVIF_FIRST);
    expect([plain.json.data.format, webp.headers["content-type"], webp.headers.vary]).toEqual(["webp", "image/webp", undefined]);

    const refused = await first.client.request("POST", "/api/generate", {
      key,
      body: { image, template: "circle-webp", templateType: "avatar", format: "auto" },
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      success: false,
      error: { code: "INVALID_REQUEST", details: [{ path: "format", message: expect.stringContaining("transparent") }] },
    });
    const unknown = await first.client.request("POST", "/api/generate", { key, body: { image, template: "medium", templateType: "thumbnail", format: "gif" } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.details).toEqual([expect.objectContaining({ path: "format" })]);
  });

  it('lets format "auto" make an account template with an opaque WebP canvas negotiate; a PNG canvas refuses it', async () => {
    const logo = await logoPng();
    const card = { ...launchCard("auto-card", logo), canvas: { ...launchCard("auto-card", logo).canvas, format: "webp" } };
    expect((await first.client.request("POST", "/api/templates", { key, body: card })).status).toBe(201);
    expect((await first.client.request("POST", "/api/templates", { key, body: launchCard("png-card", logo) })).status).toBe(201);
    const image = (await photoPng(600, 600)).toString("base64");
    const made = await first.client.request("POST", "/api/generate", { key, body: { image, template: "auto-card", templateType: "custom", format: "auto" } });
    expect(made.status).toBe(200);
    expect(made.json.data).toMatchObject({ format: "jpeg", width: 1200, height: 630 });
    const avif = await fetchResult(first, pathOf(made.json.data.resultUrl), AVIF_FIRST);
    expect([avif.status, avif.headers["content-type"], avif.headers.vary]).toEqual([200, "image/avif", "Accept"]);

    const refused = await first.client.request("POST", "/api/generate", { key, body: { image, template: "png-card", templateType: "custom", format: "auto" } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toEqual([{ path: "format", message: expect.stringContaining("PNG") }]);
  });

  it("serves on one instance the variant the other made, from the store, without transcoding again", async () => {
    const { resultId, path, expiresAt } = await makeResult();
    const made = await fetchResult(first, path, AVIF_FIRST);
    expect(made.headers["content-type"]).toBe("image/avif");
    expect(Buffer.from(Option.getOrThrow(await storedVariant(resultId, "avif")).bytes).equals(made.body)).toBe(true);

    // Put a different, recognisable AVIF in its place: a transcode on the other instance would give
    // the first one's bytes again; serving the marker proves the other read the store.
    const marker = await sharp(made.body).avif({ quality: 30, effort: 0 }).toBuffer();
    expect(marker.equals(made.body)).toBe(false);
    await replaceVariant({ resultId, format: "avif", bytes: marker, contentType: "image/avif", expiresAt });

    const fromOther = await fetchResult(second, path, AVIF_FIRST);
    expect([fromOther.status, fromOther.headers["content-type"], fromOther.headers.vary]).toEqual([200, "image/avif", "Accept"]);
    expect(fromOther.body.equals(marker)).toBe(true);
  });
});
