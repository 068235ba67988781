import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { photoJpeg } from "../support/image-fixtures.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Hostile case 5: DATA_DIR holds the event store, the server secret, the TLS key and customers'
 * results. Started from a shell whose umask lets everyone read, the service and the CLI still
 * create every file 0600 and every folder 0700. A weak SERVER_SECRET stops the start.
 */
let service: ServiceProcess;

beforeAll(async () => {
  const previous = process.umask(0o022);
  try {
    service = await startService();
  } finally {
    process.umask(previous);
  }
});
afterAll(async () => service?.stop());

const everything = (root: string): string[] =>
  fs.readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(root, entry.name);
    return entry.isDirectory() ? [full, ...everything(full)] : [full];
  });

describe("files under DATA_DIR", () => {
  it("are readable by their owner only, after CLI use and a stored result", async () => {
    const { keys } = await provisionAccount(service.env, "enterprise");
    const image = (await photoJpeg(320, 240)).toString("base64");
    const reply = await service.client.request("POST", "/api/generate", { key: keys[0]!.key, body: { image, template: "small", templateType: "thumbnail" } });
    expect(reply.status).toBe(200);
    const paths = [service.dataDir, ...everything(service.dataDir)];
    expect(paths.some((p) => p.includes("results"))).toBe(true);
    const open = paths
      .filter((p) => (fs.statSync(p).mode & 0o077) !== 0)
      .map((p) => `${path.relative(service.dataDir, p)} ${(fs.statSync(p).mode & 0o777).toString(8)}`);
    expect(open).toEqual([]);
  });
});

describe("SERVER_SECRET", () => {
  it.each([["s".repeat(40)], ["changeme".repeat(5)], ["0123456789abcdef0123456789abcdef"], ["password".repeat(4)]])(
    "%s stops the start with a message naming it",
    async (secret) => {
      await expect(startService({ env: { SERVER_SECRET: secret } })).rejects.toThrow(/SERVER_SECRET is too weak/);
    },
  );
});
