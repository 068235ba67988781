import fs from "node:fs";
import https from "node:https";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Reply } from "../support/https-client.ts";
import { grainyPhotoJpeg, photoJpeg, photoPng } from "../support/image-fixtures.ts";
import { itsctl, provisionAccount, rssMiB, type ServiceProcess, startService, waitForExit } from "../support/service-process.ts";

/**
 * Admission by memory on the real service: a burst that fits is served in full (the quota, not the
 * queue, says no), a full budget refuses before a body is read, and SIGTERM lets admitted work finish.
 */
let service: ServiceProcess;
const stopped: Array<ServiceProcess> = [];

beforeAll(async () => {
  // Default settings: no engine or rate-limit overrides.
  service = await startService();
});
afterAll(async () => {
  for (const s of [service, ...stopped]) {
    await s?.stop();
    if (s) fs.rmSync(s.dataDir, { recursive: true, force: true });
  }
});

/**
 * One service with an 11 MiB budget for the two tests that fill it: each provisions its own account
 * and ends by showing a request fits again once its holder is gone, so the second finds it empty.
 */
let smallBudget: Promise<ServiceProcess> | undefined;
const smallBudgetService = () =>
  (smallBudget ??= startService({ env: { ENGINE_MEMORY_BUDGET_BYTES: String(11 * 1024 * 1024) } }).then((small) => (stopped.push(small), small)));

const generate = (target: ServiceProcess, key: string, image: string) =>
  target.client.request("POST", "/api/generate", { key, body: { image, template: "instagram-square", templateType: "social" } });

/** Sends a POST's headers (a large Content-Length) and no body; resolves with the response, if one comes first. */
const headersOnly = (target: ServiceProcess, key: string, contentLength: number) => {
  const ca = fs.readFileSync(path.join(target.dataDir, "tls", "self-signed-cert.pem"));
  const req = https.request(`https://127.0.0.1:${target.httpsPort}/api/generate`, {
    method: "POST",
    ca,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Content-Length": String(contentLength) },
  });
  const reply = new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
  });
  req.flushHeaders();
  return { req, reply };
};

describe("admission by memory", () => {
  it("serves 60 concurrent /generate of a free account with default settings: exactly 50 × 200 and 10 × QUOTA_EXCEEDED, no 503", async () => {
    const env = { DATA_DIR: service.dataDir };
    const { keys } = await provisionAccount(env, "free", 4);
    const image = (await photoPng(600, 400)).toString("base64");
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => generate(service, keys[i % 4]!.key, image)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 503)).toHaveLength(0);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    const refused = replies.filter((r) => r.status === 429);
    expect(refused).toHaveLength(10);
    for (const r of refused) expect(r.json.error.code).toBe("QUOTA_EXCEEDED");
  }, 120_000);

  it("serves a burst of 120 concurrent 3000×2000 photos with default settings in full, all within the deadline", async () => {
    // Eight keys for the burst (each key's rate allows 15 at once), one for the request before it.
    const { keys } = await provisionAccount({ DATA_DIR: service.dataDir }, "enterprise", 9);
    const image = (await grainyPhotoJpeg(3000, 2000)).toString("base64");
    // Bodies made once, as remote clients' would cost this machine nothing: the service alone is measured.
    const bodies = keys.map(({ key }) => ({ key, body: Buffer.from(JSON.stringify({ image, template: "instagram-square", templateType: "social" })) }));
    const ca = fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem"));
    const post = ({ key, body }: { key: string; body: Buffer }) =>
      new Promise<number>((resolve, reject) => {
        const req = https.request(`https://127.0.0.1:${service.httpsPort}/api/generate`, {
          method: "POST",
          ca,
          agent: false,
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Content-Length": String(body.length) },
        });
        req.on("response", (res) => (res.resume(), res.on("end", () => resolve(res.statusCode ?? 0))));
        req.on("error", reject);
        req.end(body);
      });
    // A service that has served a few such photos: the face model's thread starts with the first (a second or two).
    for (let i = 0; i < 3; i++) expect(await post(bodies[8]!)).toBe(200);
    const idle = rssMiB(service.pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(service.pid))), 50);
    const started = performance.now();
    const statuses = await Promise.all(Array.from({ length: 120 }, (_, i) => post(bodies[i % 8]!)));
    clearInterval(sampler);
    console.log(
      `[admission] a burst of 120 3000×2000 photos answered in ${((performance.now() - started) / 1000).toFixed(1)} s, peak RSS idle + ${peak - idle} MiB`,
    );
    const counts = new Map<number, number>();
    for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
    // Counted, not timed: the pace estimate must not refuse what the deadline could serve (it once refused 5 to 44 of these).
    expect(Object.fromEntries(counts)).toEqual({ 200: 120 });
    expect(peak - idle).toBeLessThan(1536);
  }, 180_000);

  it("refuses with 503 and Retry-After before reading the body when the budget is full", async () => {
    const small = await smallBudgetService();
    const { keys } = await provisionAccount({ DATA_DIR: small.dataDir }, "pro", 1);
    // 4 MB declared × 2.5 (read, parsed, decoded) = 10 MB of the 11 MiB budget, held while its body trickles in.
    const holder = headersOnly(small, keys[0]!.key, 4_000_000);
    holder.req.write('{"image":"');
    holder.reply.catch(() => undefined); // it is cut off below, unanswered
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Another 1 MB (2.5 MB) would not fit: refused from its headers alone (it never sends a byte of body).
    const startedAt = performance.now();
    const refused = headersOnly(small, keys[0]!.key, 1_000_000);
    const reply = await refused.reply;
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body).error.code).toBe("SERVICE_UNAVAILABLE");
    expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    refused.req.destroy();
    const refusedId = String(reply.headers["x-request-id"]);
    // A body over the route's limit is still a 413, not a 503: it would never fit.
    const tooLarge = headersOnly(small, keys[0]!.key, 200_000_000);
    expect((await tooLarge.reply).status).toBe(413);
    tooLarge.req.destroy();
    // Once the holder is gone, its bytes return and a request fits again.
    holder.req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const image = (await photoPng(300, 200)).toString("base64");
    expect((await generate(small, keys[0]!.key, image)).status).toBe(200);
    // An answer to load, not a fault: logged at warn (40), without a cause to page anyone with
    // (the log is complete once the service has stopped; the next test starts its own).
    await small.stop();
    smallBudget = undefined;
    const logged = small
      .logs()
      .split("\n")
      .filter((line) => line.includes(refusedId))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toEqual([expect.objectContaining({ level: 40, status: 503, error: "SERVICE_UNAVAILABLE", overload: true })]);
    expect(logged[0]).not.toHaveProperty("cause");
  }, 120_000);

  it("answers refused uploads (503, 413) whether the client sends its body at once and closes, or waits for 100 Continue", async () => {
    const small = await smallBudgetService();
    const { keys } = await provisionAccount({ DATA_DIR: small.dataDir }, "pro", 1);
    const key = keys[0]!.key;
    const holder = headersOnly(small, key, 4_000_000);
    holder.req.write('{"image":"');
    holder.reply.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const ca = fs.readFileSync(path.join(small.dataDir, "tls", "self-signed-cert.pem"));
    const bodyOf = (megabytes: number) =>
      Buffer.from(JSON.stringify({ image: "A".repeat(megabytes * 1_000_000), template: "instagram-square", templateType: "social" }));
    /** A whole upload, sent as most clients send it; `expectContinue` holds it for the server's word. */
    const upload = (expectContinue: boolean, body = bodyOf(3)) =>
      new Promise<{ status: number; retryAfter: unknown; code: string; continued: boolean }>((resolve, reject) => {
        let continued = false;
        const req = https.request(`https://127.0.0.1:${small.httpsPort}/api/generate`, {
          method: "POST",
          ca,
          agent: false, // Connection: close: the server must not close on the unread upload
          headers: {
            Authorization: `Bearer ${key}`,
            "Content-Type": "application/json",
            "Content-Length": String(body.length),
            ...(expectContinue ? { Expect: "100-continue" } : {}),
          },
        });
        req.on("continue", () => ((continued = true), req.end(body)));
        req.on("response", (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => {
            resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"], code: JSON.parse(text).error?.code, continued });
            req.destroy(); // a client refused before it sent its body gives the body up
          });
        });
        req.on("error", reject);
        if (!expectContinue) req.end(body);
      });

    const sent = await Promise.all(Array.from({ length: 8 }, () => upload(false)));
    for (const reply of sent) expect(reply).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE", retryAfter: expect.any(String) });
    const held = await upload(true);
    expect(held).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE", continued: false });
    // Over the route's limit (about 15 MB): refused unread, and the client still reads the 413 (it used to see EPIPE).
    expect(await upload(false, bodyOf(25))).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
    holder.req.destroy();
    // With room again, the client waiting for 100 Continue is asked for its body and served.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const image = (await photoPng(300, 200)).toString("base64");
    const admitted = await upload(true, Buffer.from(JSON.stringify({ image, template: "instagram-square", templateType: "social" })));
    expect(admitted).toMatchObject({ status: 200, continued: true });
  }, 120_000);

  it("on SIGTERM finishes the admitted requests, refuses new ones with 503, and loses no quota unit or event", async () => {
    const env = { DATA_DIR: service.dataDir };
    const { accountId, keys } = await provisionAccount(env, "pro", 2);
    const image = (await photoPng(1600, 1200)).toString("base64");
    let signalledAt = Number.POSITIVE_INFINITY;
    const answeredAt: Array<number> = [];
    const inFlight = Array.from({ length: 24 }, (_, i) =>
      generate(service, keys[i % 2]!.key, image).then(
        (reply) => (answeredAt.push(Date.now()), reply),
        () => "connection lost" as const,
      ),
    );
    // Signalled as soon as the first one is answered: the rest are then admitted and in flight,
    // however fast this machine serves them.
    await Promise.race(inFlight);
    process.kill(service.pid, "SIGTERM");
    signalledAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late: Array<Reply | "connection lost"> = await Promise.all(
      Array.from({ length: 3 }, () => generate(service, keys[1]!.key, image).catch(() => "connection lost" as const)),
    );
    const replies = await Promise.all(inFlight);
    await waitForExit(service.pid);
    // Its model threads (face detection ran on every photo) closed, not torn down under onnxruntime:
    // terminating them aborted the process ("terminate called after throwing an instance of 'Napi::Error'").
    await expect.poll(() => service.exit()).toEqual({ code: 0, signal: null });
    expect(service.logs()).not.toContain("terminate called");

    // Every request sent before the signal was answered: served, or (arriving after it) refused with 503.
    expect(replies.filter((r) => r === "connection lost")).toHaveLength(0);
    const served = replies.filter((r): r is Reply => r !== "connection lost" && r.status === 200);
    expect(replies.every((r) => r !== "connection lost" && (r.status === 200 || r.status === 503))).toBe(true);
    expect(answeredAt.filter((t) => t > signalledAt).length).toBeGreaterThan(0);
    for (const r of late) expect(r === "connection lost" || r.status === 503).toBe(true);
    expect(late.some((r) => r !== "connection lost" && r.status === 503 && r.headers["retry-after"] !== undefined)).toBe(true);
    expect(service.logs()).toContain("admitted requests answered");
    // Each refusal while draining carries its request id and is logged once under it.
    const refused = [...replies, ...late].filter((r): r is Reply => r !== "connection lost" && r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const reply of refused) {
      const requestId = String(reply.headers["x-request-id"]);
      expect(reply.json.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(
        service
          .logs()
          .split("\n")
          .filter((line) => line.includes(requestId)),
      ).toHaveLength(1);
    }

    // The store agrees: each served request is one committed unit, nothing reserved is left open.
    const audit = await itsctl(env, ["audit", "--account", accountId]);
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    expect(audit.stdout).toContain(
      `Totals: ${served.length} unit(s) committed, 0 unit(s) released, ${served.length} unit(s) reserved, 0 request(s) refused (0 unit(s))`,
    );
  }, 120_000);
});

/** Sends a whole /generate and returns the request, to be abandoned by the caller, and its response. */
const abandonable = (target: ServiceProcess, key: string, body: string) => {
  const ca = fs.readFileSync(path.join(target.dataDir, "tls", "self-signed-cert.pem"));
  const req = https.request(`https://127.0.0.1:${target.httpsPort}/api/generate`, {
    method: "POST",
    ca,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) },
  });
  const answered = new Promise<void>((resolve) => {
    req.on("response", () => resolve());
    req.on("error", () => resolve());
  });
  req.end(body);
  return { req, answered };
};

describe("stopping while a model thread works", () => {
  it("exits with code 0 when SIGTERM comes while the face detections of requests whose clients left still run", async () => {
    // Before, the face thread was terminated under a running onnxruntime inference, and the process
    // aborted (SIGABRT) in 4 of 6 such stops; a round is a fresh service, so the race gets two tries
    // (it failed with 1 - (2/6)² ≈ 89 % before; a third round, ~8 s of CI, raised that to 96 %).
    const body = JSON.stringify({ image: (await photoJpeg(3000, 2000)).toString("base64"), template: "instagram-square", templateType: "social" });
    for (let round = 0; round < 2; round++) {
      const target = await startService();
      stopped.push(target);
      const { keys } = await provisionAccount({ DATA_DIR: target.dataDir }, "pro");
      const sent = Array.from({ length: 4 }, () => abandonable(target, keys[0]!.key, body));
      await Promise.race(sent.map((s) => s.answered));
      for (const s of sent) s.req.destroy();
      process.kill(target.pid, "SIGTERM");
      await waitForExit(target.pid);
      await expect.poll(() => target.exit()).toEqual({ code: 0, signal: null });
      expect(target.logs()).not.toContain("terminate called");
    }
  }, 180_000);
});
