import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { nkeys } from "@nats-io/transport-node";
import { Context, Effect, Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsClient, natsConnectionLayer } from "../../src/adapters/nats/nats-connection.ts";
import { maskUrlSecrets } from "../../src/adapters/security/url-secrets.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { makeDataDir, provisionAccount, startService } from "../support/service-process.ts";

/**
 * NATS with authentication, as docker-compose.yml runs it: servers of our own (Debian's
 * nats-server, on free ports, configured from a temporary folder, stopped afterwards), one asking
 * for a user and password or an nkey, one for a token. And no password or token of any connection
 * URL in what the service prints when it cannot connect.
 */
const NATS_SERVER = "/usr/sbin/nats-server";
const available = fs.existsSync(NATS_SERVER);
if (!available) console.warn(`[nats credentials] SKIPPED — no ${NATS_SERVER} (Debian: apt-get install -y nats-server)`);

const PASSWORD = "bus-pass-8d1f";
const TOKEN = "bus-token-51c0";
const user = nkeys.createUser();
const dirs: Array<string> = [];
const servers: Array<ChildProcess> = [];

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "its-nats-auth-"));
  dirs.push(dir);
  return dir;
};

/** A nats-server with JetStream and the given authorization block; resolves once it accepts connections. */
const startNatsServer = async (authorization: string): Promise<number> => {
  const dir = tempDir();
  const port = await freePort();
  const config = path.join(dir, "nats.conf");
  fs.writeFileSync(config, `host: 127.0.0.1\nport: ${port}\njetstream { store_dir: "${path.join(dir, "js")}" }\nauthorization ${authorization}\n`);
  const server = spawn(NATS_SERVER, ["-c", config], { stdio: "ignore" });
  servers.push(server);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return port;
    if (Date.now() > deadline) throw new Error(`nats-server on ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

let usersPort = 0;
let tokenPort = 0;
beforeAll(async () => {
  if (!available) return;
  usersPort = await startNatsServer(`{ users = [ { user: its, password: "${PASSWORD}" }, { nkey: ${user.getPublicKey()} } ] }`);
  tokenPort = await startNatsServer(`{ token: "${TOKEN}" }`);
});
afterAll(() => {
  for (const server of servers) server.kill();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Connects as the service would with this configuration and asks JetStream for the account's info. */
const jetStreamAnswers = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const config = loadConfig(env, 2);
        const context = yield* Layer.build(natsConnectionLayer({ servers: config.natsUrl!, auth: config.natsAuth, requestTimeoutMs: 5_000 }));
        const info = yield* Effect.promise(() => Context.get(context, NatsClient).manager.getAccountInfo());
        return info.api.total >= 0;
      }),
    ),
  );

/** Why connecting failed: the error and its cause, as a log line shows them. */
const failure = (env: Record<string, string>) =>
  jetStreamAnswers(env).then(
    () => "connected",
    (error: unknown) => `${String(error)} ${String((error as { cause?: unknown }).cause)}`,
  );

describe.skipIf(!available)("NATS credentials", () => {
  it("authenticates with a user and password in NATS_URL, percent-encoded or not", async () => {
    expect(await jetStreamAnswers({ NATS_URL: `nats://its:${PASSWORD}@127.0.0.1:${usersPort}` })).toBe(true);
    expect(await jetStreamAnswers({ NATS_URL: `nats://its:${encodeURIComponent(PASSWORD)}@127.0.0.1:${usersPort}` })).toBe(true);
    expect(await failure({ NATS_URL: `nats://127.0.0.1:${usersPort}` })).toMatch(/nats \(nats:\/\/127\.0\.0\.1:\d+\) is unavailable/);
  });

  it("authenticates with an nkey whose seed is in NATS_NKEY_SEED_FILE", async () => {
    const seedFile = path.join(tempDir(), "service.nk");
    fs.writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`, { mode: 0o600 });
    expect(await jetStreamAnswers({ NATS_URL: `nats://127.0.0.1:${usersPort}`, NATS_NKEY_SEED_FILE: seedFile })).toBe(true);
    const missing = await failure({ NATS_URL: `nats://127.0.0.1:${usersPort}`, NATS_NKEY_SEED_FILE: `${seedFile}.missing` });
    expect(missing).toContain(`cannot read NATS_NKEY_SEED_FILE ${seedFile}.missing: ENOENT`);
  });

  it("authenticates with a token, in NATS_URL or NATS_TOKEN", async () => {
    expect(await jetStreamAnswers({ NATS_URL: `nats://${TOKEN}@127.0.0.1:${tokenPort}` })).toBe(true);
    expect(await jetStreamAnswers({ NATS_URL: `nats://127.0.0.1:${tokenPort}`, NATS_TOKEN: TOKEN })).toBe(true);
    const wrong = await failure({ NATS_URL: `nats://127.0.0.1:${tokenPort}`, NATS_TOKEN: "not-the-token" });
    expect(wrong).not.toBe("connected");
    expect(wrong).not.toContain("not-the-token");
  });

  it("refuses two ways of authenticating, or credentials without NATS_URL, without repeating a secret", () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env, 2);
        return "accepted";
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
    };
    expect(refusal({ NATS_URL: `nats://its:${PASSWORD}@h:4222`, NATS_TOKEN: TOKEN })).toBe(
      "NATS: give one way of authenticating, not credentials in NATS_URL and NATS_TOKEN",
    );
    expect(refusal({ NATS_URL: `nats://its:${PASSWORD}@h1:4222,nats://its:other@h2:4222` })).toMatch(/different credentials/);
    expect(refusal({ NATS_TOKEN: TOKEN })).toBe("NATS_TOKEN set without NATS_URL");
    expect(refusal({ NATS_URL: `http://its:${PASSWORD}@h:4222` })).not.toContain(PASSWORD);
    // One URL may carry the credentials for the others.
    expect(loadConfig({ NATS_URL: `nats://its:${PASSWORD}@h1:4222,nats://h2:4222` }, 2)).toMatchObject({
      natsUrl: "nats://h1:4222,nats://h2:4222",
      natsAuth: { kind: "user", user: "its", password: PASSWORD },
    });
  });

  it("runs the service on a NATS that requires a password: a new key works", { timeout: 120_000 }, async () => {
    const service = await startService({ env: { NATS_URL: `nats://its:${PASSWORD}@127.0.0.1:${usersPort}` } });
    try {
      const { keys } = await provisionAccount(service.env, "pro");
      expect((await service.client.request("GET", "/api/user/profile", { key: keys[0]!.key })).status).toBe(200);
    } finally {
      await service.stop();
      fs.rmSync(service.dataDir, { recursive: true, force: true });
    }
    expect(service.logs()).not.toContain(PASSWORD);
  });
});

describe("secrets in connection URLs", () => {
  it("are masked in the message of a service that cannot connect: NATS_URL, DATABASE_URL, KURRENTDB_URL", { timeout: 180_000 }, async () => {
    const closedPort = await freePort();
    const cases = [
      {
        env: { NATS_URL: `nats://its:nats-secret-1@127.0.0.1:${available ? usersPort : closedPort}` },
        secret: "nats-secret-1",
        names: "nats (nats://127.0.0.1:",
      },
      { env: { NATS_URL: `nats://nats-token-2@127.0.0.1:${closedPort}` }, secret: "nats-token-2", names: `nats://127.0.0.1:${closedPort}` },
      {
        env: { EVENT_STORE: "postgres", DATABASE_URL: `postgres://postgres:pg-secret-3@127.0.0.1:${closedPort}/db?schema=s` },
        secret: "pg-secret-3",
        names: "postgres",
      },
      {
        env: { EVENT_STORE: "kurrentdb", KURRENTDB_URL: `kurrentdb://admin:kdb-secret-4@127.0.0.1:${closedPort}?tls=false` },
        secret: "kdb-secret-4",
        names: "kurrentdb",
      },
    ];
    for (const { env, secret, names } of cases) {
      const dataDir = makeDataDir();
      const message = await startService({ dataDir, env }).then(
        async (service) => {
          await service.stop();
          return `started: ${service.logs()}`;
        },
        (error: unknown) => (error as Error).message,
      );
      fs.rmSync(dataDir, { recursive: true, force: true });
      expect(message).toMatch(/^service exited before listening/);
      expect(message).toContain(names);
      expect(message).not.toContain(secret);
    }
  });

  it("mask passwords and tokens, keeping users and hosts", () => {
    expect(maskUrlSecrets("nats (nats://its:p%40ss@nats:4222,nats://tok@h2:4222) is unavailable")).toBe(
      "nats (nats://its:***@nats:4222,nats://***@h2:4222) is unavailable",
    );
    expect(maskUrlSecrets("postgres://postgres:secret@db:5432/its?schema=e&password=x&sslmode=require")).toBe(
      "postgres://postgres:***@db:5432/its?schema=e&password=***&sslmode=require",
    );
    expect(maskUrlSecrets("kurrentdb://admin:changeit@a:2113,b:2113?tls=false")).toBe("kurrentdb://admin:***@a:2113,b:2113?tls=false");
    expect(maskUrlSecrets("see https://example.com/a@b and mail@example.com")).toBe("see https://example.com/a@b and mail@example.com");
  });
});
