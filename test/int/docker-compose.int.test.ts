import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/config.ts";

/**
 * docker-compose.yml validates with `docker-compose config` (no Docker engine needed), and what it
 * hands the service is a configuration the service accepts, pointing at the compose services.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

const composeVersion = (() => {
  try {
    return execFileSync("docker-compose", ["version", "--short"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
})();
if (composeVersion === undefined) console.warn("[docker-compose] SKIPPED — no docker-compose binary (Debian: apt-get install -y docker-compose)");

interface ComposeService {
  readonly image?: string;
  readonly command?: ReadonlyArray<string>;
  readonly environment?: Record<string, string>;
  readonly profiles?: ReadonlyArray<string>;
  readonly ports?: ReadonlyArray<{ readonly target: number } | string>;
  readonly volumes?: ReadonlyArray<string>;
}

/** `docker-compose config` with only the given variables set (not whatever the test runner's shell exports). */
const composeConfig = async (env: Record<string, string>, ...args: ReadonlyArray<string>) => {
  const { stdout } = await run("docker-compose", ["config", ...args], { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "", ...env } });
  return stdout;
};
const services = async (env: Record<string, string>) =>
  (parse(await composeConfig(env)) as { services: Record<string, ComposeService> }).services;

describe.skipIf(composeVersion === undefined)(`docker-compose.yml (docker-compose ${composeVersion})`, () => {
  it("passes `docker-compose config -q`", async () => {
    expect(await composeConfig({}, "-q")).toBe("");
  });

  it("wires the service to KurrentDB and NATS with JetStream by default", async () => {
    const all = await services({});
    const api = all["api"]!;
    const config = loadConfig(api.environment ?? {}, 2);
    expect(config.eventStore).toEqual({ kind: "kurrentdb", url: "kurrentdb://kurrentdb:2113?tls=false" });
    expect(all["kurrentdb"]?.environment).toMatchObject({ KURRENTDB_INSECURE: "true", KURRENTDB_CLUSTER_SIZE: "1" });
    expect(new URL(api.environment?.["NATS_URL"] ?? "").hostname).toBe("nats");
    expect(all["nats"]?.command).toContain("-js");
  });

  it("switches to PostgreSQL by configuration only, with its profile", async () => {
    const all = await services({ EVENT_STORE: "postgres", POSTGRES_PASSWORD: "secret" });
    const config = loadConfig(all["api"]!.environment ?? {}, 2);
    expect(config.eventStore).toEqual({ kind: "postgres", url: "postgres://postgres:secret@postgres:5432/its", schema: "event_store" });
    expect(all["postgres"]?.profiles).toEqual(["postgres"]);
    expect(all["postgres"]?.environment).toMatchObject({ POSTGRES_DB: "its", POSTGRES_PASSWORD: "secret" });
  });

  it("publishes the ports the image exposes and mounts its DATA_DIR volume", async () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    const exposed = /^EXPOSE\s+(.+)$/m.exec(dockerfile)?.[1]?.split(/\s+/).map(Number);
    const dataDir = /^ENV .*DATA_DIR=(\S+)/m.exec(dockerfile)?.[1];
    const api = (await services({}))["api"]!;
    expect(api.ports?.map((port) => (typeof port === "string" ? Number(port.split(":").at(-1)) : port.target)).sort()).toEqual(exposed?.sort());
    expect(api.volumes?.some((volume) => volume.split(":")[1] === dataDir)).toBe(true);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
  });
});
