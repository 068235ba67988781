import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { photoPng } from "../support/image-fixtures.ts";
import { itsctl, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 42's "Done when", over real HTTPS behind a trusted proxy (TRUST_PROXY=true: the client is
 * the address the proxy appended to X-Forwarded-For), with keys made by the real itsctl.
 */
let service: ServiceProcess;
let image: string;
let accountId: string;

beforeAll(async () => {
  service = await startService({ env: { TRUST_PROXY: "true" } });
  image = (await photoPng(96, 64)).toString("base64");
  const opened = await itsctl(service.env, ["account", "open", "--email", "security@example.com", "--plan", "pro", "--json"]);
  accountId = (JSON.parse(opened.stdout) as { id: string }).id;
});
afterAll(async () => service?.stop());

const from = (address: string) => ({ "X-Forwarded-For": address, "X-Forwarded-Proto": "https" });
const CLIENT = "198.51.100.20";
const profile = (key: string, address = CLIENT) => service.client.request("GET", "/api/user/profile", { key, headers: from(address) });
const generate = (key: string, address = CLIENT) =>
  service.client.request("POST", "/api/generate", { key, headers: from(address), body: { image, template: "instagram-square", templateType: "social" } });
const ocr = (key: string) => service.client.request("POST", "/api/ocr", { key, headers: from(CLIENT), body: { image } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Created {
  readonly id: string;
  readonly key: string;
  readonly restrictions: { readonly expiresAt: string | null };
}
const createKey = async (name: string, ...options: Array<string>): Promise<Created> => {
  const made = await itsctl(service.env, ["key", "create", "--account", accountId, "--name", name, ...options, "--json"]);
  expect(made.code, made.stderr).toBe(0);
  return JSON.parse(made.stdout) as Created;
};
const untilPast = async (iso: string) => sleep(Math.max(0, Date.parse(iso) - Date.now()) + 100);

describe("keys a security team accepts", () => {
  it("holds a key to its scopes: 403 naming the scope outside them, 200 inside and on the profile", async () => {
    const { key } = await createKey("mobile-ocr", "--scopes", "ocr");
    const refused = await generate(key);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS" });
    expect(refused.json.error.message).toContain("generate");
    expect((await ocr(key)).status).toBe(200);
    const own = await profile(key);
    expect(own.status).toBe(200);
    expect(own.json.data.key).toMatchObject({ scopes: ["ocr"], expiresAt: null, allowedIps: null, monthlyLimit: null });
  });

  it("treats a key past its expiry as deleted: works, then 401", async () => {
    const { key, restrictions } = await createKey("ci", "--expires", "4s");
    expect((await profile(key)).status).toBe(200);
    await untilPast(restrictions.expiresAt!);
    const expired = await profile(key);
    expect(expired.status).toBe(401);
    expect(expired.json.error.code).toBe("UNAUTHORIZED");
  });

  it("admits a key only from its allowed ranges, IPv4 and IPv6, as the trusted proxy names the client", async () => {
    const { key } = await createKey("server", "--allow-ip", "203.0.113.0/24,2001:db8::/32");
    expect((await profile(key, "203.0.113.77")).status).toBe(200);
    expect((await profile(key, "2001:db8::5")).status).toBe(200);
    const outside = await profile(key, "198.51.100.9");
    expect(outside.status).toBe(403);
    expect(outside.json.error.code).toBe("IP_NOT_ALLOWED");
    // What the client writes left of the proxy's entry is not believed.
    expect((await profile(key, "203.0.113.77, 198.51.100.9")).status).toBe(403);
  });

  it("caps a key's units a month: 200, 200, then 429 KEY_QUOTA_EXCEEDED, the account's quota untouched", async () => {
    const { key } = await createKey("partner", "--monthly-limit", "2");
    const before = (await profile(key)).json.data.quota.used as number;
    expect((await generate(key)).status).toBe(200);
    expect((await generate(key)).status).toBe(200);
    const capped = await generate(key);
    expect(capped.status).toBe(429);
    expect(capped.json.error.code).toBe("KEY_QUOTA_EXCEEDED");
    expect(Number(capped.headers["retry-after"])).toBeGreaterThan(0);
    const after = (await profile(key)).json.data;
    expect(after.key).toMatchObject({ monthlyLimit: 2, usage: { used: 2 } });
    expect(after.quota.used).toBe(before + 2);
  });

  it("rolls a key with a grace: both work, then only the new one", async () => {
    const old = await createKey("rotating", "--scopes", "generate,ocr", "--monthly-limit", "100");
    const rolled = await itsctl(service.env, ["key", "roll", "--account", accountId, "--key", old.id, "--grace", "4s", "--json"]);
    expect(rolled.code, rolled.stderr).toBe(0);
    const replacement = JSON.parse(rolled.stdout) as Created & { name: string; rolledFrom: { id: string; expiresAt: string } };
    expect(replacement).toMatchObject({ name: "rotating", restrictions: { scopes: ["generate", "ocr"], monthlyLimit: 100 }, rolledFrom: { id: old.id } });
    expect((await profile(old.key)).status).toBe(200);
    expect((await profile(replacement.key)).status).toBe(200);
    await untilPast(replacement.rolledFrom.expiresAt);
    expect((await profile(old.key)).status).toBe(401);
    expect((await profile(replacement.key)).status).toBe(200);
  });

  it("refuses an unknown scope or a malformed range in the CLI, named, with exit 2", async () => {
    const scope = await itsctl(service.env, ["key", "create", "--account", accountId, "--scopes", "ocr,admin"]);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain("unknown scope admin");
    const range = await itsctl(service.env, ["key", "create", "--account", accountId, "--allow-ip", "203.0.113.0/33"]);
    expect(range.code).toBe(2);
    expect(range.stderr).toContain("203.0.113.0/33");
  });

  it("lists every key's restrictions and last use, and the audit names each restriction and the roll", async () => {
    const listed = await itsctl(service.env, ["key", "list", "--account", accountId, "--json"]);
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    // The expired key and the rolled key past its grace are gone; the others are listed with their restrictions.
    expect(keys.map((key) => key["name"]).sort()).toEqual(["mobile-ocr", "partner", "rotating", "server"]);
    const byName = new Map(keys.map((key) => [key["name"], key]));
    expect(byName.get("mobile-ocr")).toMatchObject({ scopes: ["ocr"], expiresAt: null, allowedIps: null, monthlyLimit: null });
    expect(byName.get("server")).toMatchObject({ allowedIps: ["203.0.113.0/24", "2001:db8::/32"] });
    expect(byName.get("partner")).toMatchObject({ monthlyLimit: 2 });
    for (const key of keys) expect(Date.parse(String(key["lastUsedAt"]))).toBeGreaterThan(Date.now() - 120_000);

    const audited = await itsctl(service.env, ["audit", "--account", accountId]);
    expect(audited.code, audited.stdout + audited.stderr).toBe(0);
    for (const named of ["scopes ocr", "expires ", "allowed IPs 203.0.113.0/24,2001:db8::/32", "monthly limit 2", "key rolled to ", "scopes generate,ocr"]) {
      expect(audited.stdout).toContain(named);
    }
  });
});
