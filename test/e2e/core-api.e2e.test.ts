import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainRequest } from "../support/https-client.ts";
import { photoPng } from "../support/image-fixtures.ts";
import { ContractViolation } from "../support/openapi-validator.ts";
import { itsctl, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/** Issue 2 through real HTTPS requests against the real service process and the real CLI. */
let service: ServiceProcess;
let image: string;

beforeAll(async () => {
  // Bursts here test counting, not admission: neither the queue nor the pace-based deadline check may
  // refuse the 60 concurrent requests on a slow, loaded machine (admission has its own tests).
  service = await startService({ env: { ENGINE_QUEUE_LENGTH: "100", ENGINE_DEADLINE_MS: "120000" } });
  image = (await photoPng(96, 64)).toString("base64");
});
afterAll(async () => service?.stop());

const profile = (key: string) => service.client.request("GET", "/api/user/profile", { key });
const generate = (key: string, body: unknown = { image, template: "instagram-square", templateType: "social" }) =>
  service.client.request("POST", "/api/generate", { key, body });

describe("keys made with the CLI", () => {
  it("work at once, show the profile, and are refused within 1 s of deletion", async () => {
    const { accountId, keys } = await provisionAccount(service.env, "pro");
    const [key] = keys;
    const ok = await profile(key!.key);
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({
      success: true,
      data: {
        id: accountId,
        plan: "pro",
        features: ["generate", "ocr", "virtual-tryon"],
        quota: { limit: 500, used: 0, remaining: 500 },
        rateLimit: { perMinute: 10, burst: 15 },
        key: { id: key!.id, name: "key-0", prefix: `its_${key!.id}` },
      },
    });
    expect(ok.json.data.quota.period).toMatch(/^\d{4}-\d{2}$/);
    expect(ok.headers["x-request-id"]).toBeTruthy();
    expect(ok.headers["strict-transport-security"]).toContain("max-age=");
    expect(ok.headers["api-version"]).toBeTruthy();

    const deleted = await itsctl(service.env, ["key", "delete", "--account", accountId, "--key", key!.id]);
    expect(deleted.code).toBe(0);
    const deletedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - deletedAt < 1000) status = (await profile(key!.key)).status;
    expect(status).toBe(401);
    expect(Date.now() - deletedAt).toBeLessThan(1000);
    const refused = await profile(key!.key);
    expect(refused.json).toEqual({ success: false, error: { code: "UNAUTHORIZED", message: expect.any(String), requestId: refused.headers["x-request-id"] } });
  });

  it("takes the Bearer scheme in any case, as clients generated from the document write it", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    for (const authorization of [`bearer ${keys[0]!.key}`, `BEARER  ${keys[0]!.key}`]) {
      const reply = await service.client.request("GET", "/api/user/profile", { headers: { Authorization: authorization } });
      expect(reply.status).toBe(200);
    }
  });

  it("refuses missing, malformed and unknown keys with 401", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const forged = keys[0]!.key.slice(0, -4) + "AAAA";
    for (const headers of [{}, { Authorization: "Basic abc" }, { Authorization: `Bearer ${forged}` }, { Authorization: "Bearer its_nope" }]) {
      const reply = await service.client.request("GET", "/api/user/profile", { headers });
      expect(reply.status).toBe(401);
      expect(reply.json.error.code).toBe("UNAUTHORIZED");
    }
  });

  it("reports bad CLI input clearly with a non-zero exit", async () => {
    const badPlan = await itsctl(service.env, ["account", "open", "--email", "x@example.com", "--plan", "gold"]);
    expect(badPlan.code).not.toBe(0);
    expect(badPlan.stderr).toContain("gold");
    const noAccount = await itsctl(service.env, ["key", "create", "--account", "acc_missing"]);
    expect(noAccount.code).not.toBe(0);
    expect(noAccount.stderr).toMatch(/no such account/);
    const badEmail = await itsctl(service.env, ["account", "open", "--email", "nope", "--plan", "free"]);
    expect(badEmail.code).not.toBe(0);
    expect(badEmail.stderr).toMatch(/not an email/);
  });
});

describe("rate limit", () => {
  it("lets 15 back-to-back requests through, refuses the 16th with Retry-After, and refills at 10 per minute", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const key = keys[0]!.key;
    const replies = [];
    for (let i = 0; i < 16; i++) replies.push(await profile(key));
    expect(replies.slice(0, 15).map((r) => r.status)).toEqual(Array(15).fill(200));
    const refused = replies[15]!;
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(6);
    expect(replies[0]!.headers["ratelimit-policy"]).toBe('"per-key";q=15;w=90');
    expect(replies[14]!.headers["ratelimit"]).toMatch(/^"per-key";r=0;t=\d+$/);

    // 10 per minute is one token every 6 s.
    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers["retry-after"]) * 1000 + 100));
    expect((await profile(key)).status).toBe(200);
    expect((await profile(key)).status).toBe(429);
  });
});

describe("quota", () => {
  it("gives exactly 50 of 60 concurrent /generate requests on 5 keys of a free account", async () => {
    const { keys } = await provisionAccount(service.env, "free", 5);
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => generate(keys[i % 5]!.key)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    const refused = replies.filter((r) => r.status === 429);
    expect(refused).toHaveLength(10);
    for (const r of refused) {
      expect(r.json.error.code).toBe("QUOTA_EXCEEDED");
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
    }
    const after = await profile(keys[0]!.key);
    expect(after.json.data.quota).toMatchObject({ limit: 50, used: 50, remaining: 0 });
  });

  it("counts nothing for a request whose processing fails", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const key = keys[0]!.key;
    const failed = await generate(key, {
      image: Buffer.from("this is not an image at all").toString("base64"),
      template: "instagram-square",
      templateType: "social",
    });
    expect(failed.status).toBe(422);
    expect(failed.json.error.code).toBe("INVALID_IMAGE");
    const ok = await generate(key);
    expect(ok.status).toBe(200);
    expect((await profile(key)).json.data.quota.used).toBe(1);
  });
});

describe("/generate end to end", () => {
  it("returns a signed resultUrl that serves the image without a key, and refuses a tampered one", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const reply = await generate(keys[0]!.key);
    expect(reply.status).toBe(200);
    expect(reply.json.data).toMatchObject({ template: "instagram-square", templateType: "social", format: "jpeg", width: 1080, height: 1080 });
    expect(reply.json.data.processingTime).toBeGreaterThanOrEqual(0);
    const url = reply.json.data.resultUrl as string;
    expect(url.startsWith(`https://127.0.0.1:${service.httpsPort}/api/results/`)).toBe(true);
    const result = await service.client.get(url);
    expect(result.status).toBe(200);
    expect(result.headers["content-type"]).toBe("image/jpeg");
    expect(result.body.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(result.body.length).toBe(reply.json.data.bytes);
    // Its first character changed, always to another one (a signature starting with "A" made this test pass the URL unchanged: 1 run in 64).
    const tampered = await service.client.get(url.replace(/signature=(.)/, (_, first: string) => `signature=${first === "A" ? "B" : "A"}`));
    expect(tampered.status).toBe(403);
    expect(tampered.json.success).toBe(false);
  });
});

describe("failures and refusals in the log", () => {
  it("answer a failing /results read and a plain-HTTP POST through the error catalog, each logged once under its request id", async () => {
    // A service of its own: the log is buffered and complete only once the process has stopped.
    const own = await startService({ env: {} });
    try {
      const { keys } = await provisionAccount(own.env, "free");
      const reply = await own.client.request("POST", "/api/generate", {
        key: keys[0]!.key,
        body: { image, template: "instagram-square", templateType: "social" },
      });
      const url = new URL(reply.json.data.resultUrl as string);
      const resultId = decodeURIComponent(url.pathname.split("/").at(-1)!);
      // The stored file turned into a directory: reading it fails below the use case, as a broken disk would.
      const file = path.join(own.dataDir, "results", resultId.slice(0, 2).toLowerCase(), `${resultId}.result`);
      fs.rmSync(file);
      fs.mkdirSync(file);
      // A client's own X-Request-Id is not echoed: the response names the service's id, the log both.
      const failed = await own.client.request("GET", `${url.pathname}${url.search}`, { headers: { "X-Request-Id": "client-chosen-id-2" } });
      expect(failed.status).toBe(503);
      expect(failed.json.error.code).toBe("SERVICE_UNAVAILABLE");
      const requestId = String(failed.headers["x-request-id"]);
      expect(failed.json.error.requestId).toBe(requestId);
      expect(requestId).not.toBe("client-chosen-id-2");
      // Refused by the plain-HTTP listener, outside the app: logged the same way (without the path).
      const plain = await plainRequest(own.httpPort, "POST", "/api/generate", "{}");
      expect(plain.status).toBe(403);
      const plainId = String(plain.headers["x-request-id"]);
      await own.stop();
      const linesOf = (id: string) =>
        own
          .logs()
          .split("\n")
          .filter((line) => line.includes(id));
      expect(linesOf(plainId).map((line) => JSON.parse(line) as unknown)).toEqual([
        expect.objectContaining({ level: 30, requestId: plainId, method: "POST", status: 403, error: "HTTPS_REQUIRED" }),
      ]);
      const lines = linesOf(requestId);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        level: 50,
        requestId,
        clientRequestId: "client-chosen-id-2",
        path: url.pathname,
        status: 503,
        error: "SERVICE_UNAVAILABLE",
        cause: expect.stringContaining("EISDIR"),
      });
    } finally {
      await own.stop();
      fs.rmSync(own.dataDir, { recursive: true, force: true });
    }
  });
});

describe("bad input gets the right 4xx with the error body, and uses no quota", () => {
  it("answers each malformed request precisely", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const key = keys[0]!.key;
    const cases: Array<[string, () => ReturnType<typeof generate>, number, string]> = [
      ["malformed JSON", () => service.client.request("POST", "/api/generate", { key, body: '{"image": "abc",' }), 400, "INVALID_REQUEST"],
      ["wrong types", () => generate(key, { image: 42, template: ["x"], templateType: "social" }), 400, "INVALID_REQUEST"],
      ["missing fields", () => generate(key, { template: "instagram-square" }), 400, "INVALID_REQUEST"],
      ["a JSON array", () => generate(key, [1, 2]), 400, "INVALID_REQUEST"],
      ["unknown template", () => generate(key, { image, template: "nope", templateType: "social" }), 400, "INVALID_REQUEST"],
      ["unknown template type", () => generate(key, { image, template: "x", templateType: "nope" }), 400, "INVALID_REQUEST"],
      [
        "wrong content type",
        () => service.client.request("POST", "/api/generate", { key, body: "image=abc", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      [
        "oversized body",
        () => generate(key, { image: "A".repeat(30 * 1024 * 1024), template: "instagram-square", templateType: "social" }),
        413,
        "PAYLOAD_TOO_LARGE",
      ],
      [
        "image over the byte limit",
        () => generate(key, { image: "A".repeat(14 * 1024 * 1024), template: "instagram-square", templateType: "social" }),
        413,
        "PAYLOAD_TOO_LARGE",
      ],
      ["not base64", () => generate(key, { image: "%%%not base64%%%", template: "instagram-square", templateType: "social" }), 422, "INVALID_IMAGE"],
      [
        "not an image",
        () =>
          generate(key, {
            image: Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64"),
            template: "instagram-square",
            templateType: "social",
          }),
        422,
        "INVALID_IMAGE",
      ],
    ];
    for (const [name, send, status, code] of cases) {
      const reply = await send();
      expect({ name, status: reply.status, code: reply.json?.error?.code }).toEqual({ name, status, code });
      expect(reply.json.success).toBe(false);
      expect(typeof reply.json.error.message).toBe("string");
    }
    const wrongTypes = await generate(key, { image: 42, template: "instagram-square", templateType: "social" });
    expect(wrongTypes.json.error.details).toEqual([{ path: "image", message: expect.any(String) }]);
    const unknown = await generate(key, { image, template: "nope", templateType: "social" });
    expect(unknown.json.error.message).toContain("instagram-square");
    // templateType custom picks the account-template form: only its own fields are named, not the catalog form's.
    const custom = await generate(key, { templateType: "custom", template: 5, text: { title: 1 } });
    expect(custom.json.error.details).toEqual([
      { path: "template", message: expect.any(String) },
      { path: "text.title", message: expect.any(String) },
    ]);
    expect((await profile(key)).json.data.quota.used).toBe(0);
  });

  it("answers unknown paths and methods with the error body", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const missing = await service.client.request("GET", "/api/nope", { key: keys[0]!.key });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("NOT_FOUND");
    const wrongMethod = await service.client.request("DELETE", "/api/generate", { key: keys[0]!.key });
    expect(wrongMethod.status).toBe(405);
  });
});

describe("the OpenAPI document", () => {
  const ROOT = path.resolve(import.meta.dirname, "../..");
  const served = async () => (await service.client.request("GET", "/api/openapi.json")).json;
  /** A JSON body's schema, with a $ref to a component followed. */
  const resolved = (document: { components: { schemas: Record<string, unknown> } }, schema: { $ref?: string }) =>
    (schema.$ref ? document.components.schemas[schema.$ref.replace("#/components/schemas/", "")] : schema) as {
      required?: string[];
      properties: Record<string, { required?: string[] }>;
    };

  it("is served without a key and describes every operation", async () => {
    const reply = await service.client.request("GET", "/api/openapi.json");
    expect(reply.status).toBe(200);
    expect(reply.json.openapi).toBe("3.1.0");
    expect(Object.keys(reply.json.paths)).toEqual(
      expect.arrayContaining(["/generate", "/ocr", "/ocr/languages", "/virtual-tryon", "/user/profile", "/templates"]),
    );
    expect(reply.json.servers[0].url).toBe(`https://127.0.0.1:${service.httpsPort}/api`);
    expect(reply.headers["api-version"]).toBe(reply.json.info.version);
    expect(reply.json.info).toMatchObject({ contact: expect.any(Object), license: { name: expect.any(String) } });
  });

  it("names, tags and summarises every operation, lists its errors, and every success body its required fields", async () => {
    const document = await served();
    type Operation = {
      operationId: string;
      tags: string[];
      summary: string;
      responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
    };
    const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap((item) => Object.values(item));
    expect(operations.map((op) => op.operationId)).toEqual(
      expect.arrayContaining([
        "generateImage",
        "recognizeText",
        "virtualTryOn",
        "getProfile",
        "listTemplates",
        "listOcrLanguages",
        "getResult",
        "auditAccount",
      ]),
    );
    for (const op of operations) {
      expect(op.tags, op.operationId).toHaveLength(1);
      expect(op.summary, op.operationId).toBeTruthy();
      expect(
        Object.keys(op.responses).some((status) => status >= "400"),
        op.operationId,
      ).toBe(true);
      // 200, or 201 for a creation: the one success status each operation declares.
      const success = Object.entries(op.responses).find(([status]) => status.startsWith("2"))![1];
      const json = success.content!["application/json"];
      if (json === undefined) continue;
      const body = resolved(document, json.schema);
      expect(body.required, op.operationId).toEqual(["success", "data"]);
      expect(body.properties.data!.required?.length, op.operationId).toBeGreaterThan(0);
    }
    expect(document.paths["/generate"].post.responses["422"].description).toContain("IDEMPOTENCY_KEY_REUSED");
    expect(document.paths["/generate"].post.parameters).toEqual([
      expect.objectContaining({ name: "idempotency-key", in: "header", required: false }),
      expect.objectContaining({ name: "prefer", in: "header", required: false }),
    ]);
  });

  it("declares /generate's two bodies: the catalog one with the catalog's templates and types as enums, and the custom one", async () => {
    const document = await served();
    const { keys } = await provisionAccount(service.env, "free");
    const catalog = (await service.client.request("GET", "/api/templates", { key: keys[0]!.key })).json.data.templates as Array<{
      template: string;
      templateType: string;
    }>;
    const schemas = document.components.schemas as Record<string, { anyOf?: Array<{ $ref: string }>; enum?: string[]; required?: string[] }>;
    const component = (ref: { $ref?: string }) => schemas[ref.$ref!.replace("#/components/schemas/", "")]!;
    const body = component(document.paths["/generate"].post.requestBody.content["application/json"].schema);
    const forms = body.anyOf!.map((ref) => component(ref) as { properties: Record<string, { $ref: string }>; required: string[] });
    const [catalogForm, customForm] = forms;
    expect(forms).toHaveLength(2);
    expect(component(catalogForm!.properties["template"]!).enum!.sort()).toEqual([...new Set(catalog.map((t) => t.template))].sort());
    expect(component(catalogForm!.properties["templateType"]!).enum!.sort()).toEqual([...new Set(catalog.map((t) => t.templateType))].sort());
    expect(catalogForm!.required.sort()).toEqual(["image", "template", "templateType"]);
    expect(component(customForm!.properties["templateType"]!).enum).toEqual(["custom"]);
    expect(customForm!.required.sort()).toEqual(["template", "templateType"]);
  });

  it("passes Spectral's spectral:oas rules with no error and no warning", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "its-spectral-"));
    try {
      fs.writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(await served()));
      fs.writeFileSync(path.join(dir, ".spectral.yaml"), 'extends: ["spectral:oas"]\n');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          path.join(ROOT, "node_modules/@stoplight/spectral-cli/dist/index.js"),
          "lint",
          "openapi.json",
          "--ruleset",
          ".spectral.yaml",
          "--format",
          "json",
          "--quiet",
          "--fail-severity",
          "hint",
        ],
        { cwd: dir },
      ).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
      const findings = JSON.parse(stdout || "[]") as Array<{ code: string; severity: number; message: string; path: string[] }>;
      expect(findings.map((f) => `${f.code} at ${f.path.join(".")}: ${f.message}`)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives a typed client (openapi-typescript + openapi-fetch) that compiles under tsc --strict and works against the service", async () => {
    const run = promisify(execFile);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "its-client-"));
    try {
      // The committed types are what openapi-typescript makes of the served document.
      fs.writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(await served()));
      await run(
        process.execPath,
        [path.join(ROOT, "tools/openapi-types/node_modules/openapi-typescript/bin/cli.js"), "openapi.json", "--output", "api-types.ts"],
        { cwd: dir },
      );
      expect(fs.readFileSync(path.join(dir, "api-types.ts"), "utf8"), "run npm run contract:types").toBe(
        fs.readFileSync(path.join(ROOT, "examples/typed-client/api-types.ts"), "utf8"),
      );
      // `npm test`'s type check compiles the example with these types under the project's strict tsconfig.

      const { keys } = await provisionAccount(service.env, "free");
      fs.writeFileSync(path.join(dir, "photo.png"), Buffer.from(image, "base64"));
      const env = {
        ...process.env,
        API_BASE_URL: `https://127.0.0.1:${service.httpsPort}`,
        API_KEY: keys[0]!.key,
        IMAGE: path.join(dir, "photo.png"),
        IDEMPOTENCY_KEY: "typed-client-1",
        NODE_EXTRA_CA_CERTS: path.join(service.dataDir, "tls", "self-signed-cert.pem"),
      };
      const runs = [
        await run(process.execPath, ["examples/typed-client/client.ts"], { cwd: ROOT, env }),
        await run(process.execPath, ["examples/typed-client/client.ts"], { cwd: ROOT, env }),
      ];
      const outputs = runs.map(({ stdout }) => JSON.parse(stdout.trim().split("\n").at(-1)!) as { resultUrl: string; width: number; format: string });
      expect(outputs[0]).toMatchObject({ width: 1080, format: "jpeg" });
      expect(outputs[1]).toEqual(outputs[0]);
      expect((await service.client.get(outputs[0]!.resultUrl)).status).toBe(200);
      expect((await profile(keys[0]!.key)).json.data.quota.used).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives a second generator (@hey-api/openapi-ts, offline) a named type for every body and header, and no anonymous one", async () => {
    const document = await served();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "its-hey-api-"));
    try {
      fs.writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(document));
      // A local file in, files out: the generator needs no network.
      await promisify(execFile)(
        process.execPath,
        [path.join(ROOT, "node_modules/@hey-api/openapi-ts/bin/run.js"), "-i", "openapi.json", "-o", "client", "-p", "@hey-api/typescript"],
        { cwd: dir },
      );
      const types = fs.readFileSync(path.join(dir, "client/types.gen.ts"), "utf8");
      const exported = new Set([...types.matchAll(/^export type (\w+) =/gm)].map((match) => match[1]!));
      const components = Object.keys(document.components.schemas as object);
      // Every component keeps its name; none is renamed for a clash with an operation's types (GenerateImageResponse2).
      expect(components.filter((name) => !exported.has(name))).toEqual([]);
      expect([...exported].filter((name) => /\d$|Inline/.test(name))).toEqual([]);
      type Operation = {
        operationId: string;
        requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
        parameters: Array<{ name: string; schema: { $ref?: string } }>;
        responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }>; headers?: Record<string, { schema: { $ref?: string } }> }>;
      };
      const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap((item) => Object.values(item));
      const named = (where: string, schema: { $ref?: string }) => expect(schema.$ref, where).toMatch(/^#\/components\/schemas\/\w+$/);
      for (const op of operations) {
        for (const media of Object.values(op.requestBody?.content ?? {})) named(`${op.operationId} body`, media.schema);
        for (const parameter of op.parameters) named(`${op.operationId} ${parameter.name}`, parameter.schema);
        for (const [status, response] of Object.entries(op.responses)) {
          const json = response.content?.["application/json"];
          if (json) named(`${op.operationId} ${status}`, json.schema);
          for (const [name, header] of Object.entries(response.headers ?? {})) named(`${op.operationId} ${status} ${name}`, header.schema);
        }
        // Each operation's statuses map to those named types, nothing written out in place.
        const pascal = op.operationId[0]!.toUpperCase() + op.operationId.slice(1);
        for (const block of ["Errors", "Responses"]) {
          const body = new RegExp(`^export type ${pascal}${block} = \\{\\n([\\s\\S]*?)^\\};`, "m").exec(types)?.[1] ?? "";
          const entries = [...body.matchAll(/^ {4}(\d{3}): (.+);$/gm)].map((match) => match[2]!);
          expect(entries.length, `${pascal}${block}`).toBeGreaterThan(0);
          for (const type of entries) expect(exported.has(type) || type === "Blob | File", `${pascal}${block}: ${type}`).toBe(true);
        }
      }
      // And they compile under the strictest settings.
      await promisify(execFile)(
        process.execPath,
        [
          path.join(ROOT, "node_modules/typescript/bin/tsc"),
          "--noEmit",
          "--strict",
          "--target",
          "es2022",
          "--moduleResolution",
          "bundler",
          "--module",
          "esnext",
          "client/index.ts",
        ],
        { cwd: dir },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers every method an operation does not take with 405 and the Allow header the document declares", async () => {
    const document = await served();
    const { keys } = await provisionAccount(service.env, "free");
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, { required?: boolean }> }> }>>;
    let tried = 0;
    for (const [template, item] of Object.entries(paths)) {
      const taken = Object.keys(item).map((method) => method.toUpperCase());
      const concrete = `/api${template.replace(/\{\w+\}/g, "x")}`;
      for (const method of methods.filter((m) => !taken.includes(m))) {
        // The client checks the reply against the document: a 405 or an Allow it does not declare fails here.
        const reply = await service.client.request(method, concrete, { key: keys[0]!.key });
        expect({ method, template, status: reply.status, code: reply.json.error.code }).toEqual({ method, template, status: 405, code: "METHOD_NOT_ALLOWED" });
        const allowed = String(reply.headers["allow"]).split(", ");
        expect(allowed.filter((m) => m !== "HEAD").sort(), `${method} ${template}`).toEqual([...taken].sort());
        for (const operation of Object.values(item)) expect(operation.responses["405"]?.headers?.["Allow"]?.required, template).toBe(true);
        tried++;
      }
    }
    expect(tried).toBeGreaterThanOrEqual(30);
  });

  it("is what every e2e reply is checked against: a reply of the wrong shape fails", async () => {
    const { keys } = await provisionAccount(service.env, "free");
    const reply = await generate(keys[0]!.key);
    expect(reply.status).toBe(200);
    const check = await service.client.contract();
    const checked =
      (json: unknown, status = 200) =>
      () =>
        check({ method: "POST", path: "/api/generate", status, contentType: "application/json", json });
    expect(checked(reply.json)).not.toThrow();
    const { resultUrl: _dropped, ...withoutUrl } = reply.json.data;
    expect(checked({ success: true, data: withoutUrl })).toThrow(ContractViolation);
    expect(checked({ success: true, data: { ...reply.json.data, width: "1080" } })).toThrow(/width/);
    expect(checked({ success: false, error: { code: "NOT_A_CODE", message: "x" } }, 400)).toThrow(ContractViolation);
    expect(checked({ success: false, error: { code: "INVALID_REQUEST", message: "x" } }, 418)).toThrow(/no such status/);
    // Headers: each declared one must be there when required and match its schema; an undeclared one fails.
    const headers = reply.headers as Record<string, string>;
    const withHeaders = (changed: Record<string, string | undefined>) => () =>
      check({ method: "POST", path: "/api/generate", status: 200, contentType: "application/json", json: reply.json, headers: { ...headers, ...changed } });
    expect(withHeaders({})).not.toThrow();
    expect(withHeaders({ "x-request-id": undefined })).toThrow(/x-request-id is missing/i);
    expect(withHeaders({ ratelimit: "15 left" })).toThrow(/ratelimit/i);
    expect(withHeaders({ "x-powered-by": "koa" })).toThrow(/not declared/);
  });
});

describe("HTTPS only", () => {
  it("refuses plain-HTTP POSTs with 403 HTTPS_REQUIRED and redirects GETs with 308", async () => {
    const post = await plainRequest(service.httpPort, "POST", "/api/generate", JSON.stringify({ image }));
    expect(post.status).toBe(403);
    expect(post.json).toEqual({ success: false, error: { code: "HTTPS_REQUIRED", message: expect.any(String), requestId: post.headers["x-request-id"] } });
    const get = await plainRequest(service.httpPort, "GET", "/api/user/profile?x=1");
    expect(get.status).toBe(308);
    expect(get.headers.location).toBe(`https://127.0.0.1:${service.httpsPort}/api/user/profile?x=1`);
  });
});

describe("secrets at rest and in logs", () => {
  it("stores no key secret anywhere and logs none, and keeps accounts and keys across a restart", async () => {
    const { keys } = await provisionAccount(service.env, "enterprise");
    const { key } = keys[0]!;
    expect((await profile(key)).status).toBe(200);
    const secret = key.split("_").slice(2).join("_");
    const files = fs.readdirSync(service.dataDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    for (const file of files) {
      const content = fs.readFileSync(path.join(file.parentPath, file.name));
      expect(content.includes(secret), file.name).toBe(false);
    }
    expect(service.logs().includes(secret)).toBe(false);

    await service.stop();
    service = await startService({ dataDir: service.dataDir, env: { ENGINE_QUEUE_LENGTH: "100" } });
    const again = await profile(key);
    expect(again.status).toBe(200);
    expect(again.json.data.plan).toBe("enterprise");
  });
});
