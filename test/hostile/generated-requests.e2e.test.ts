import fc from "fast-check";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { astronaut, tshirt } from "../fixtures/tryon/tryon-fixtures.ts";
import { bmpOf, pbmOf, pdfOf, scannedPage } from "../support/document-fixtures.ts";
import { photoJpeg, pngBomb } from "../support/image-fixtures.ts";
import { type Hint, oddStrings } from "../support/openapi-arbitraries.ts";
import { type Operation, requestsFor } from "../support/openapi-requests.ts";
import { itsctl, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Requests generated from the OpenAPI document the service serves, sent over HTTPS to one real
 * service process, one at a time: for every operation, bodies, parameters and credentials valid by
 * the document's schemas and near-valid ones (fields dropped, mistyped, huge or odd; images tiny,
 * huge, odd or broken, as base64 or data URLs). No reply may be a 5xx, and every reply must be one
 * the document declares for that operation, its body matching the schema (https-client.ts checks
 * each against the served document).
 */
const OPERATOR_TOKEN = "operator-token-for-generated-requests-0123456789";
let service: ServiceProcess;
let document: { paths: Record<string, Record<string, Operation>> };
let keys: ReadonlyArray<string>;
/** Keys with restrictions (issue 42): every operation's 403 and 429 of a key must be ones the document declares. */
let restricted: ReadonlyArray<string>;
let accounts: ReadonlyArray<string>;
let images: ReadonlyArray<Uint8Array>;
/** Images every template takes, for bodies whose other fields belong together. */
let decodable: ReadonlyArray<Uint8Array>;
let people: ReadonlyArray<Uint8Array>;
let garments: ReadonlyArray<Uint8Array>;
let catalog: ReadonlyArray<{ template: string; templateType: string }>;
let languages: ReadonlyArray<string>;
/** Result URLs the run has produced so far: GET /results draws on them. */
const results: Array<URL> = [];
/** Requests charged so far (their receipts are in the log): the receipt and proof routes ask about them. */
const charged: Array<string> = [];
/** Templates of the accounts' own made so far: the routes by id draw on them. */
const templateIds: Array<string> = [];
/** Jobs accepted so far (Prefer: respond-async): the jobs routes ask about them. */
const jobIds: Array<string> = [];

/** Noise images of 1-64 px a side in every format the routes read, each format's oddities included. */
const tinyImages = async (): Promise<Array<Uint8Array>> => {
  const shapes = fc.sample(
    fc.record({
      width: fc.integer({ min: 1, max: 64 }),
      height: fc.integer({ min: 1, max: 64 }),
      channels: fc.constantFrom(1, 2, 3, 4) as fc.Arbitrary<1 | 2 | 3 | 4>,
      format: fc.constantFrom("png", "jpeg", "webp", "gif", "tiff", "avif"),
    }),
    { numRuns: 14, seed: 24 },
  );
  const fixed = [
    { width: 1, height: 1, channels: 3, format: "png" },
    { width: 2, height: 2, channels: 4, format: "webp" },
    { width: 12, height: 12, channels: 1, format: "jpeg" },
  ] as const;
  return Promise.all(
    [...fixed, ...shapes].map(async ({ width, height, channels, format }) => {
      const pixels = Buffer.from(Array.from({ length: width * height * channels }, (_, i) => (i * 7919 + width) % 251));
      const raw = sharp(pixels, { raw: { width, height, channels } });
      return new Uint8Array(await (format === "avif" ? raw.avif({ effort: 0 }) : raw.toFormat(format)).toBuffer());
    }),
  );
};

beforeAll(async () => {
  service = await startService({
    env: {
      OPERATOR_TOKEN,
      // Hundreds of requests on three keys: the rate limit is not what this suite is about.
      RATE_LIMIT_BURST: "100000",
      RATE_LIMIT_PER_MINUTE: "100000",
      // A 1 MiB image limit makes "too large" cheap to reach.
      MAX_IMAGE_BYTES: String(1 << 20),
    },
  });
  document = (await service.client.send("GET", "/api/openapi.json")).json;
  const provisioned = await Promise.all((["free", "pro", "enterprise"] as const).map((plan) => provisionAccount(service.env, plan)));
  keys = provisioned.map((p) => p.keys[0]!.key);
  accounts = provisioned.map((p) => p.accountId);
  const enterprise = keys[2]!;
  const restrictedKey = async (accountId: string, ...options: Array<string>) =>
    (JSON.parse((await itsctl(service.env, ["key", "create", "--account", accountId, ...options, "--json"])).stdout) as { key: string }).key;
  restricted = [
    // Out of scope everywhere but OCR, and capped at two units.
    await restrictedKey(accounts[1]!, "--scopes", "ocr", "--monthly-limit", "2"),
    // Never from this client's address.
    await restrictedKey(accounts[2]!, "--allow-ip", "203.0.113.0/24,2001:db8::/32"),
  ];
  catalog = (await service.client.request("GET", "/api/templates", { key: enterprise })).json.data.templates;
  languages = (await service.client.request("GET", "/api/ocr/languages", { key: enterprise })).json.data.languages.map((l: { code: string }) => l.code);
  const photo = await photoJpeg(96, 64);
  const page = await scannedPage("Generated inputs", 600);
  images = [
    ...(await tinyImages()),
    photo,
    page,
    await pdfOf([page]),
    await bmpOf(await sharp(photo).png().toBuffer()),
    await pbmOf(await sharp(photo).png().toBuffer()),
    // Strips: tiny files, extreme shapes.
    await sharp({ create: { width: 1, height: 4000, channels: 3, background: "#336699" } })
      .png()
      .toBuffer(),
    await sharp({ create: { width: 4000, height: 1, channels: 3, background: "#336699" } })
      .png()
      .toBuffer(),
    pngBomb(),
    photo.subarray(0, photo.length / 2),
    new Uint8Array(0),
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'),
    Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31) % 256)),
    // Over the 1 MiB image limit.
    Buffer.alloc((1 << 20) + 10, 7),
  ];
  decodable = [photo, page];
  people = [astronaut()];
  garments = [await tshirt()];
  // One result to fetch from the start; later ones join as the run makes them.
  const first = await service.client.request("POST", "/api/generate", {
    key: enterprise,
    body: { image: Buffer.from(photo).toString("base64"), template: "small", templateType: "thumbnail" },
  });
  results.push(new URL(first.json.data.resultUrl));
  charged.push(first.json.data.requestId);
  // One template of the account's own, so the routes by id reach one from the start.
  const design = {
    name: "generated-start",
    canvas: { width: 64, height: 64, background: "#ffffff", format: "png" },
    layers: [{ type: "shape", box: { x: 8, y: 8, width: 48, height: 48 }, fill: "#336699" }],
  };
  templateIds.push((await service.client.request("POST", "/api/templates", { key: enterprise, body: design })).json.data.id);
});
afterAll(async () => service?.stop());

/** Bytes as a client might send them: base64 in its variants, or a data URL of any stated type. */
const encoded = (bytes: fc.Arbitrary<Uint8Array>): fc.Arbitrary<string> =>
  fc
    .tuple(
      bytes,
      fc.constantFrom("base64", "base64url", "unpadded", "data-url", "mime-lines", "spaced"),
      fc.constantFrom("image/png", "image/jpeg", "application/pdf", "text/plain", ""),
    )
    .map(([raw, how, type]) => {
      const base64 = Buffer.from(raw).toString("base64");
      switch (how) {
        case "base64url":
          return Buffer.from(raw).toString("base64url");
        case "unpadded":
          return base64.replaceAll("=", "");
        case "data-url":
          return `data:${type};base64,${base64}`;
        case "mime-lines":
          return (base64.match(/.{1,76}/g) ?? []).join("\r\n");
        case "spaced":
          return ` ${base64}\n`;
        default:
          return base64;
      }
    });

/** What the schemas cannot say: which strings are images, names the service serves, dates, ids. */
const hint: Hint = (name) => {
  const pick = <T>(values: () => ReadonlyArray<T>) => fc.nat().map((i) => values()[i % values().length]!);
  const image = encoded(pick(() => images));
  switch (name) {
    case "image":
      return image;
    case "personImage":
      return fc.oneof({ arbitrary: encoded(pick(() => people)), weight: 2 }, { arbitrary: image, weight: 1 });
    case "clothingImage":
      return fc.oneof({ arbitrary: encoded(pick(() => garments)), weight: 2 }, { arbitrary: image, weight: 1 });
    case "template":
      return pick(() => catalog.map((t) => t.template));
    case "templateType":
      return pick(() => catalog.map((t) => t.templateType));
    case "language":
      return fc.oneof(
        {
          arbitrary: fc.oneof(
            pick(() => languages),
            fc.constantFrom("auto", "eng+deu"),
          ),
          weight: 4,
        },
        { arbitrary: fc.oneof(fc.constantFrom("eng+deu+fra+spa", "eng+eng", "xx", "", "ENG", "eng+"), oddStrings), weight: 1 },
      );
    case "idempotency-key":
      // Mostly fresh keys, so that most requests still run; some repeated (with other bodies), some malformed.
      return fc.oneof(
        { arbitrary: fc.uuid(), weight: 6 },
        { arbitrary: fc.constantFrom("order-1", "order-2"), weight: 1 },
        { arbitrary: fc.string({ unit: fc.constantFrom(..." \t!~éÿ"), maxLength: 300 }), weight: 1 },
      );
    case "accountId":
      return fc.oneof(
        pick(() => accounts),
        fc.string({ maxLength: 40 }),
        fc.constant("a".repeat(5000)),
      );
    case "from":
    case "to":
      // Audit ranges take dates; the receipts log's proofs and statements take tree sizes.
      return fc.oneof(
        { arbitrary: fc.constantFrom("2026-01", "2026-11-25", "2026-11-25T10:00:00Z", "2020-02-29T23:59:59.999+05:30", "9999-12-31"), weight: 2 },
        { arbitrary: fc.oneof(fc.integer({ min: 1, max: 4 }).map(String), fc.constantFrom("1,2", "2,1,1", "3")), weight: 2 },
        {
          arbitrary: fc.oneof(
            fc.constantFrom("2026-13", "0000-00", "2026-02-30", "1e9", "0", "-1", "1,", "99999999999999999999"),
            fc.string({ maxLength: 30 }),
          ),
          weight: 1,
        },
      );
    case "treeSize":
      return fc.oneof(
        { arbitrary: fc.integer({ min: 1, max: 4 }).map(String), weight: 3 },
        { arbitrary: fc.constantFrom("0", "-1", "1e3", "NaN", "99999999999999999999", ""), weight: 1 },
      );
    case "prefer":
      // Mostly synchronous, so the engines' routes still answer 200 often; sometimes a job, in the forms RFC 7240 allows.
      return fc.option(
        fc.oneof(
          fc.constantFrom("respond-async", "RESPOND-ASYNC", "wait=10, respond-async", "respond-async; x=1", "return=minimal"),
          fc.string({ maxLength: 60 }),
        ),
        {
          nil: undefined,
          freq: 3,
        },
      );
    case "jobId":
      return fc.oneof(
        { arbitrary: pick(() => (jobIds.length > 0 ? jobIds : ["none"])), weight: 3 },
        { arbitrary: fc.oneof(fc.uuid(), fc.string({ maxLength: 40 }), fc.constant("j".repeat(5000))), weight: 1 },
      );
    case "cursor":
      return fc.oneof(fc.string({ maxLength: 40 }), fc.base64String({ maxLength: 60 }));
    case "requestId":
      return fc.oneof(
        { arbitrary: pick(() => charged), weight: 3 },
        { arbitrary: fc.oneof(fc.uuid(), fc.string({ maxLength: 40 }), fc.constant("q".repeat(5000))), weight: 1 },
      );
    case "period":
      return fc.oneof(
        { arbitrary: fc.constant(new Date().toISOString().slice(0, 7)), weight: 3 },
        { arbitrary: fc.oneof(fc.constantFrom("2026-13", "2026-1", "26-11", "2026-11-01"), fc.string({ maxLength: 20 })), weight: 1 },
      );
    case "id":
      return fc.oneof(
        { arbitrary: pick(() => (templateIds.length > 0 ? templateIds : ["tpl_none"])), weight: 3 },
        { arbitrary: fc.oneof(fc.string({ maxLength: 40 }), fc.constant("t".repeat(5000))), weight: 1 },
      );
    case "resultId":
      return fc.oneof(
        pick(() => results.map((url) => url.pathname.split("/").at(-1)!)),
        fc.string({ maxLength: 40 }),
        fc.constant("r".repeat(5000)),
      );
    case "expires":
      return fc.oneof(
        pick(() => results.map((url) => url.searchParams.get("expires")!)),
        fc.constantFrom("0", "-1", "99999999999999999999", "1e3", "NaN"),
      );
    case "format":
      // A result URL's ?format=: mostly the formats it serves (each a transcode of the result), some it refuses with 400.
      return fc.oneof(
        { arbitrary: fc.constantFrom("avif", "webp", "jpeg", "png"), weight: 4 },
        { arbitrary: fc.oneof(fc.constantFrom("gif", "AVIF", "", "webp,avif", "jpg", "image/webp"), fc.string({ maxLength: 20 })), weight: 1 },
      );
    case "signature":
      return fc.oneof(
        pick(() => results.map((url) => url.searchParams.get("signature")!)),
        fc.string({ maxLength: 100 }),
      );
    default:
      return undefined;
  }
};

/** Values that belong together, so that a fair share of requests reaches the engines. */
const together = (operation: string): fc.Arbitrary<Record<string, unknown>> => {
  const pick = <T>(values: () => ReadonlyArray<T>) => fc.nat().map((i) => values()[i % values().length]!);
  switch (operation) {
    case "post /generate":
      // Half of them with an image that decodes too, and a format the body takes (the "format" hint
      // draws a result URL's; left undefined, JSON drops it): most drawn bodies would otherwise never
      // reach the engine.
      return fc
        .tuple(
          pick(() => catalog),
          fc.option(
            pick(() => decodable),
            { nil: undefined, freq: 2 },
          ),
          fc.constantFrom(undefined, "auto"),
        )
        .map(([{ template, templateType }, image, format]) => ({
          template,
          templateType,
          format,
          // A catalog template takes no variants (a drawn custom form's would make it a 400).
          variants: undefined,
          ...(image ? { image: Buffer.from(image).toString("base64") } : {}),
        }));
    case "get /audit/accounts/{accountId}":
      return pick(() => accounts).map((accountId) => ({ accountId }));
    case "get /results/{resultId}":
      return pick(() => results).map((url) => ({
        resultId: url.pathname.split("/").at(-1),
        expires: url.searchParams.get("expires"),
        signature: url.searchParams.get("signature"),
      }));
    default:
      return fc.constant({});
  }
};

const credential = (security: Operation["security"]): fc.Arbitrary<string | undefined> => {
  const scheme = Object.keys(security?.[0] ?? {})[0];
  const wrong = fc.constantFrom(undefined, "its_abc_def", "garbage", `its_${"a".repeat(5000)}`, "Bearer");
  if (scheme === "operatorToken")
    return fc.oneof({ arbitrary: fc.constant(OPERATOR_TOKEN), weight: 20 }, { arbitrary: fc.oneof(wrong, fc.constantFrom(...keys)), weight: 1 });
  if (scheme === "apiKey")
    return fc.oneof(
      { arbitrary: fc.constantFrom(...keys), weight: 20 },
      { arbitrary: fc.constantFrom(...restricted), weight: 3 },
      { arbitrary: fc.oneof(wrong, fc.constant(OPERATOR_TOKEN)), weight: 1 },
    );
  return fc.constantFrom(undefined, keys[0]);
};

/**
 * How many requests each operation gets: the engines' routes more, since they have more to get wrong.
 * The default suite sends half of the largest counts, never fewer than 80 (an engine route must still
 * reach a 200 below), with fresh random seeds each run, so runs add up; `npm run test:fuzz` sends four
 * times as many (FUZZ_RUNS_SCALE).
 */
const RUNS: Readonly<Record<string, number>> = {
  "post /generate": 250,
  "post /ocr": 120,
  "post /virtual-tryon": 80,
  "get /results/{resultId}": 60,
  "get /audit/accounts/{accountId}": 60,
};
const RUNS_SCALE = Number(process.env.FUZZ_RUNS_SCALE ?? "0.5");
const runsFor = (key: string) => {
  const runs = RUNS[key] ?? 25;
  return Math.max(Math.min(runs, 80), Math.round(runs * RUNS_SCALE));
};

describe("requests generated from the served OpenAPI document", () => {
  it("covers every operation the document lists", () => {
    const operations = Object.entries(document.paths).flatMap(([template, item]) => Object.keys(item).map((method) => `${method} ${template}`));
    expect(operations.sort()).toEqual(
      [
        "get /audit/accounts/{accountId}",
        "get /ledger/checkpoint",
        "get /ledger/key",
        "get /ledger/proof/consistency",
        "get /ledger/proof/inclusion",
        "get /receipts/{requestId}",
        "get /user/statement",
        "get /ocr/languages",
        "get /results/{resultId}",
        "get /templates",
        "post /templates",
        "get /templates/fonts",
        "get /templates/{id}",
        "put /templates/{id}",
        "delete /templates/{id}",
        "get /user/profile",
        "post /generate",
        "post /ocr",
        "post /virtual-tryon",
        "get /jobs",
        "get /jobs/{jobId}",
        "post /webhooks",
        "get /webhooks",
        "get /webhooks/{id}",
        "delete /webhooks/{id}",
        "post /webhooks/{id}/rotate-secret",
        "post /webhooks/{id}/deliveries/{deliveryId}/resend",
      ].sort(),
    );
  });

  it("never answers a 5xx or anything the document does not declare, on any operation", { timeout: 240_000 }, async () => {
    const statuses: Record<string, Record<number, number>> = {};
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const key = `${method} ${template}`;
        const seen: Record<number, number> = (statuses[key] = {});
        await fc.assert(
          fc.asyncProperty(requestsFor(document, template, method, operation, { hint, together, credential }), async ({ path, options }) => {
            const reply = await service.client.request(method.toUpperCase(), path, options);
            seen[reply.status] = (seen[reply.status] ?? 0) + 1;
            expect(reply.status, `${method.toUpperCase()} ${path.slice(0, 200)} → ${reply.status} ${reply.body.toString().slice(0, 300)}`).toBeLessThan(500);
            if (reply.status === 200 && reply.json?.data?.resultUrl) results.push(new URL(reply.json.data.resultUrl));
            if (reply.status === 200 && reply.json?.data?.receipt) charged.push(reply.json.data.requestId);
            if (reply.status === 201 && typeof reply.json?.data?.id === "string") templateIds.push(reply.json.data.id);
            if (reply.status === 202 && typeof reply.json?.data?.jobId === "string") jobIds.push(reply.json.data.jobId);
          }),
          { numRuns: runsFor(key), endOnFailure: true },
        );
      }
    }
    console.log(`[generated requests] statuses by operation: ${JSON.stringify(statuses)}`);
    // Nor did any of them make the service log an error (what a 5xx, a crash or a lost write logs).
    expect(
      service
        .logs()
        .split("\n")
        .filter((line) => /"level":(50|60)/.test(line)),
    ).toEqual([]);
    // The run reached past validation into the engines, not only the refusals.
    for (const key of ["post /generate", "post /ocr", "post /virtual-tryon", "get /results/{resultId}", "get /audit/accounts/{accountId}"])
      expect(statuses[key]![200], key).toBeGreaterThan(0);
  });

  it("serves the document itself whatever the query and headers", async () => {
    const served = JSON.stringify(document);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 30 }),
        fc.constantFrom("application/json", "*/*", "text/html", "application/xml", ""),
        fc.option(fc.constantFrom(...keys, "garbage"), { nil: undefined }),
        async (query, accept, key) => {
          const reply = await service.client.send("GET", `/api/openapi.json?${encodeURIComponent(query)}`, {
            ...(key === undefined ? {} : { key }),
            headers: accept ? { Accept: accept } : {},
          });
          expect(reply.status).toBe(200);
          expect(JSON.stringify(reply.json)).toBe(served);
        },
      ),
      { numRuns: 10 },
    );
  });

  it("answers another method on a documented path with 405 and the error body", async () => {
    const pairs = Object.entries(document.paths).flatMap(([template, item]) =>
      ["get", "post", "put", "patch", "delete"].filter((m) => !(m in item)).map((method) => [template.replace(/\{\w+\}/g, "x"), method] as const),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pairs), fc.option(fc.string(), { nil: undefined }), async ([path, method], body) => {
        const reply = await service.client.request(method.toUpperCase(), `/api${path}`, { key: keys[2]!, ...(body === undefined ? {} : { body }) });
        expect(reply.status, `${method} ${path}`).toBe(405);
        expect(reply.json).toMatchObject({ success: false, error: { code: "METHOD_NOT_ALLOWED", message: expect.any(String) } });
      }),
      { numRuns: 15 },
    );
  });
});
