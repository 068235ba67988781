import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfOf, scannedPage } from "../support/document-fixtures.ts";
import { photoPng } from "../support/image-fixtures.ts";
import { makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Idempotent responses are kept 24 hours, outside the permanent log (issue 24, cases 3 and 4): the
 * body waits in the result store, the key's completion event holds its SHA-256 and a reference.
 * One service on its own SQLite file and result directory; a second start of it on the same
 * DATA_DIR, a day and a minute later (test/support/shifted-clock.ts), plays the client that comes
 * back too late.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
const SHIFTED_CLOCK = path.resolve(import.meta.dirname, "../support/shifted-clock.ts");
const dataDir = makeDataDir();
const env = { RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "60000" };
let service: ServiceProcess;
let key: string;
let accountId: string;

/** Words no other part of the system writes down: where they are found, the OCR body is. */
const MARKER = "Quokkaville";
const denseText = Array.from(
  { length: 30 },
  (_, line) => `${MARKER} parcel ${4471 + line * 37} to Harbour St ${line * 3 + 2}, fee ${(line * 7.25).toFixed(2)}`,
).join("\n");
let document: string;
let photo: string;

beforeAll(async () => {
  [service, document, photo] = await Promise.all([
    startService({ dataDir, env }),
    pdfOf([await scannedPage(denseText)]).then((pdf) => Buffer.from(pdf).toString("base64")),
    photoPng(64, 48).then((png) => png.toString("base64")),
  ]);
  const account = await provisionAccount(service.env, "pro");
  [accountId, key] = [account.accountId, account.keys[0]!.key];
}, 60_000);
afterAll(async () => {
  await service?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const ocr = (idempotencyKey: string) =>
  service.client.request("POST", "/api/ocr", { key, body: { image: document, outputFormat: "hocr" }, headers: { "Idempotency-Key": idempotencyKey } });
const generate = (idempotencyKey: string) =>
  service.client.request("POST", "/api/generate", {
    key,
    body: { image: photo, template: "instagram-square", templateType: "social" },
    headers: { "Idempotency-Key": idempotencyKey },
  });

interface StoredEvent {
  readonly stream_name: string;
  readonly type: string;
  readonly data: string;
}
/** The events as the SQLite file holds them, read as another process would. */
const storedEvents = (): Array<StoredEvent> => {
  const db = new DatabaseSync(path.join(dataDir, "events.sqlite"), { readOnly: true });
  try {
    return db.prepare("SELECT stream_name, type, data FROM events ORDER BY global_position").all() as unknown as Array<StoredEvent>;
  } finally {
    db.close();
  }
};
const completions = () => storedEvents().filter((event) => event.type === "IdempotentRequestCompleted");
const charged = () => storedEvents().filter((event) => event.type === "QuotaCommitted" && event.stream_name.startsWith(`quota-${accountId}-`)).length;
const resultFile = (ref: string) => path.join(dataDir, "results", ref.slice(0, 2).toLowerCase(), `${ref}.result`);
/** Every file under DATA_DIR (the SQLite files with their journals, results, projections) holding `text`. */
const filesHolding = (text: string): Array<string> =>
  (fs.readdirSync(dataDir, { recursive: true, withFileTypes: true }) as Array<fs.Dirent>)
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => fs.readFileSync(file).includes(text));

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
/** The requestId of a /generate response replayed within the day. */
let keptRequestId: string | undefined;

describe("idempotent responses, kept 24 hours outside the log", () => {
  it("keeps a dense page's hocr OCR response out of the events: the completion holds its digest and a reference, and the replay is byte-identical", async () => {
    const reply = await ocr("scan-2026-11");
    expect(reply.status, reply.body.toString().slice(0, 300)).toBe(200);
    const body = reply.body;
    expect(body.toString()).toContain(MARKER);
    const chargedOnce = charged();

    const [completion, ...others] = completions();
    expect(others).toHaveLength(0);
    const data = JSON.parse(completion!.data) as { response: { status: number; bodyRef: string; bodySha256: string } };
    expect(data.response).toEqual({ status: 200, bodyRef: expect.stringMatching(/^[\w-]{8,128}$/), bodySha256: sha256(body) });
    // The event does not grow with the body (a dense page's hocr is tens of KB): 7 pages stay far below NATS's 1 MiB.
    const eventBytes = Buffer.byteLength(completion!.data);
    console.log(`hocr body of one dense page ${body.length} B; completion event ${eventBytes} B`);
    expect(body.length).toBeGreaterThan(20_000);
    expect(eventBytes).toBeLessThan(512);
    // No part of the body in the permanent log, the file and its journal read byte by byte.
    expect(storedEvents().filter((event) => event.data.includes(MARKER))).toEqual([]);
    expect(filesHolding(MARKER).map((file) => path.relative(dataDir, file))).toEqual([path.relative(dataDir, resultFile(data.response.bodyRef))]);

    const replay = await ocr("scan-2026-11");
    expect(replay.status).toBe(200);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.headers["content-type"]).toBe(reply.headers["content-type"]);
    expect(replay.body.equals(body)).toBe(true);
    expect(charged()).toBe(chargedOnce);
  }, 240_000);

  it("answers 410 IDEMPOTENCY_RESPONSE_GONE, uncharged and not run again, when the kept body is lost or altered within the 24 hours", async () => {
    const replies = [await generate("kept-1"), await generate("lost-1"), await generate("altered-1")];
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
    const [kept, , altered] = replies;
    keptRequestId = kept!.json.data.requestId;
    const [, lostRef, alteredRef] = completions()
      .slice(-3)
      .map((event) => (JSON.parse(event.data) as { response: { bodyRef: string } }).response.bodyRef);
    fs.rmSync(resultFile(lostRef!));
    const file = fs.readFileSync(resultFile(alteredRef!));
    const requestId: string = altered!.json.data.requestId;
    file.write(requestId.startsWith("0") ? "1" : "0", file.indexOf(requestId));
    fs.writeFileSync(resultFile(alteredRef!), file);
    const before = { charged: charged(), requested: storedEvents().length };

    for (const idempotencyKey of ["lost-1", "altered-1"]) {
      const retry = await generate(idempotencyKey);
      expect(retry.status, idempotencyKey).toBe(410);
      expect(retry.json.error.code).toBe("IDEMPOTENCY_RESPONSE_GONE");
      expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    }
    const replay = await generate("kept-1");
    expect([replay.status, replay.headers["idempotent-replayed"]]).toEqual([200, "true"]);
    expect(replay.body.equals(kept!.body)).toBe(true);
    expect(charged()).toBe(before.charged);
    // Nothing ran: not one event more (a replay and a 410 read the key's stream only).
    expect(storedEvents()).toHaveLength(before.requested);
  });

  it("a day later: the response is not replayed, the key is free again (a new request), and nothing of the first body is left", async () => {
    await service.stop();
    service = await startService({ dataDir, env: { ...env, NODE_OPTIONS: `--import ${SHIFTED_CLOCK}`, SHIFTED_CLOCK_MS: String(DAY_MS + 60_000) } });
    // The sweep at start deletes the kept bodies whose key has expired: then no file holds the OCR text.
    const sweptBy = Date.now() + 10_000;
    while (filesHolding(MARKER).length > 0 && Date.now() < sweptBy) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(filesHolding(MARKER).map((file) => path.relative(dataDir, file))).toEqual([]);

    const before = charged();
    for (const idempotencyKey of ["kept-1", "lost-1"]) {
      const again = await generate(idempotencyKey);
      expect(again.status, idempotencyKey).toBe(200);
      expect(again.headers["idempotent-replayed"]).toBeUndefined();
      expect(again.json.data.requestId).not.toBe(keptRequestId);
    }
    expect(charged()).toBe(before + 2);
  });
});
