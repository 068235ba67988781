import https from "node:https";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { photoJpeg } from "../support/image-fixtures.ts";
import { type InProcessService, startInProcess } from "../support/in-process-service.ts";

/**
 * One route of each family, served in this process from the Test layer over real HTTPS (issue 25):
 * the app main.ts serves, built by the same function, with no child process. Every reply is checked
 * against the served OpenAPI document by the client.
 */
const OPERATOR_TOKEN = "operator-token-of-the-in-process-test-0123456789";
let its: InProcessService;
let account: { readonly accountId: string; readonly key: string };

beforeAll(async () => {
  its = await startInProcess({ OPERATOR_TOKEN });
  account = await its.provision("pro");
}, 60_000);
afterAll(() => its?.stop());

describe("the HTTPS app in process, from the Test layer", () => {
  it("transformations: POST /api/generate stores a result, and its signed URL serves it (results)", async () => {
    const image = (await photoJpeg(320, 240)).toString("base64");
    const reply = await its.client.request("POST", "/api/generate", {
      key: account.key,
      body: { image, template: "instagram-square", templateType: "social" },
    });
    expect(reply.status).toBe(200);
    expect(reply.json.data).toMatchObject({ template: "instagram-square", width: 1080, height: 1080 });
    const result = await its.client.get(reply.json.data.resultUrl as string);
    expect(result.status).toBe(200);
    expect(result.headers["content-type"]).toBe("image/jpeg");
    expect(result.headers["cache-control"]).toMatch(/^private, max-age=\d+$/);
    const tampered = await its.client.get(`${reply.json.data.resultUrl as string}x`);
    expect(tampered.status).toBe(403);
  });

  it("account: GET /api/user/profile answers the key's account, with the RateLimit fields; no key is 401", async () => {
    const reply = await its.client.request("GET", "/api/user/profile", { key: account.key });
    expect(reply.status).toBe(200);
    expect(reply.json.data).toMatchObject({ id: account.accountId, plan: "pro" });
    expect(reply.headers.ratelimit).toMatch(/^"per-key";r=\d+;t=\d+$/);
    expect((await its.client.request("GET", "/api/user/profile")).status).toBe(401);
  });

  it("catalog and document: GET /api/templates and /api/openapi.json; another method on a known path is 405 with Allow", async () => {
    const templates = await its.client.request("GET", "/api/templates", { key: account.key });
    expect(templates.status).toBe(200);
    expect(templates.json.data.templates.map((t: { template: string }) => t.template)).toContain("instagram-square");
    const document = await its.client.send("GET", "/api/openapi.json");
    expect(document.json.paths["/generate"].post.operationId).toBe("generateImage");
    const refused = await its.client.request("DELETE", "/api/templates", { key: account.key });
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toContain("GET");
  });

  it("the document is sent compressed to a client that takes brotli or gzip, and answers 304 to the tag it holds", async () => {
    const plain = await its.client.send("GET", "/api/openapi.json");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toContain("Accept-Encoding");
    const etag = plain.headers.etag!;
    expect(etag).toMatch(/^W\/"[\w-]{32}"$/);
    // The test client parses JSON bodies, so compressed ones are fetched raw.
    const raw = (encoding: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const request = https.get(
          new URL("/api/openapi.json", its.service.servers.publicBaseUrl),
          { ca: Buffer.from(its.service.tls.cert), headers: { "Accept-Encoding": encoding, ...headers } },
          (res) => {
            const chunks: Array<Buffer> = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        request.on("error", reject);
      });
    const decoders = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync };
    for (const encoding of ["br", "gzip"] as const) {
      const reply = await raw(`${encoding}, identity;q=0.5`);
      expect(reply.headers["content-encoding"]).toBe(encoding);
      expect(reply.body.length).toBeLessThan(plain.body.length / 5);
      expect(decoders[encoding](reply.body).equals(plain.body)).toBe(true);
    }
    const revalidated = await raw("gzip", { "If-None-Match": etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect((await raw("gzip", { "If-None-Match": 'W/"another"' })).status).toBe(200);
  });

  it("audit: GET /api/audit/accounts/:accountId opens with the operator token only", async () => {
    const path = `/api/audit/accounts/${account.accountId}`;
    expect((await its.client.request("GET", path, { key: account.key })).status).toBe(401);
    const report = await its.client.request("GET", path, { key: OPERATOR_TOKEN });
    expect(report.status).toBe(200);
    expect(report.json.data.ok).toBe(true);
  });

  it("console: GET /console sends a browser without a session to sign in; the sign-in page is HTML", async () => {
    const overview = await its.client.send("GET", "/console");
    expect(overview.status).toBe(303);
    expect(overview.headers.location).toBe("/console/sign-in");
    const signIn = await its.client.send("GET", "/console/sign-in");
    expect(signIn.status).toBe(200);
    expect(signIn.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(signIn.headers["content-security-policy"]).toContain("default-src 'none'");
  });
});
