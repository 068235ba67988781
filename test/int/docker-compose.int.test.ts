import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { shippedFontFolders } from "../../src/adapters/image/fonts/shipped-font-families.ts";
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
const services = async (env: Record<string, string>) => (parse(await composeConfig(env)) as { services: Record<string, ComposeService> }).services;

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

  it("makes the service authenticate to NATS with the password the server requires", async () => {
    const all = await services({ NATS_PASSWORD: "bus-secret" });
    const command = all["nats"]?.command ?? [];
    expect(command.slice(command.indexOf("--user"), command.indexOf("--user") + 4)).toEqual(["--user", "its", "--pass", "bus-secret"]);
    const config = loadConfig(all["api"]!.environment ?? {}, 2);
    expect(config.natsAuth).toEqual({ kind: "user", user: "its", password: "bus-secret" });
    expect(config.natsUrl).toBe("nats://nats:4222");
  });

  it("switches to PostgreSQL by configuration only, with its profile", async () => {
    const all = await services({ EVENT_STORE: "postgres", POSTGRES_PASSWORD: "secret" });
    const config = loadConfig(all["api"]!.environment ?? {}, 2);
    expect(config.eventStore).toEqual({ kind: "postgres", url: "postgres://postgres:secret@postgres:5432/its", schema: "event_store" });
    expect(all["postgres"]?.profiles).toEqual(["postgres"]);
    expect(all["postgres"]?.environment).toMatchObject({ POSTGRES_DB: "its", POSTGRES_PASSWORD: "secret" });
  });

  it("scrapes the service's METRICS_PORT with Prometheus, provisions the Grafana dashboard and sends traces to Jaeger", async () => {
    const all = await services({});
    const config = loadConfig(all["api"]!.environment ?? {}, 2);
    expect(config.metricsPort).toBe(9464);
    expect(new URL(config.otlpEndpoint ?? "").host).toBe("jaeger:4318");
    // Host path → container path of each bind mount.
    const mounts = (service: string) =>
      new Map((all[service]?.volumes ?? []).map((volume) => volume.split(":")).map(([from, to]) => [path.relative(ROOT, from!), to!]));
    const prometheusYml = parse(fs.readFileSync(path.join(ROOT, "ops/prometheus/prometheus.yml"), "utf8")) as {
      scrape_configs: Array<{ metrics_path: string; static_configs: Array<{ targets: string[] }> }>;
    };
    expect(mounts("prometheus").get("ops/prometheus/prometheus.yml")).toBe("/etc/prometheus/prometheus.yml");
    expect(prometheusYml.scrape_configs[0]).toMatchObject({ metrics_path: "/metrics", static_configs: [{ targets: [`api:${config.metricsPort}`] }] });
    const provider = parse(fs.readFileSync(path.join(ROOT, "ops/grafana/provisioning/dashboards/its.yml"), "utf8")) as {
      providers: Array<{ options: { path: string } }>;
    };
    expect(mounts("grafana").get("ops/grafana/provisioning")).toBe("/etc/grafana/provisioning");
    expect(mounts("grafana").get("ops/grafana/dashboards")).toBe(provider.providers[0]!.options.path);
    const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, "ops/grafana/dashboards/its-dashboard.json"), "utf8")) as { uid: string; panels: unknown[] };
    expect(dashboard.uid).toBe("its-overview");
    expect(dashboard.panels.length).toBeGreaterThan(10);
    expect(all["grafana"]?.environment?.["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]).toBe(`${provider.providers[0]!.options.path}/its-dashboard.json`);
    // Tracing is turned off by an empty endpoint.
    expect(loadConfig((await services({ OTEL_EXPORTER_OTLP_ENDPOINT: "" }))["api"]!.environment ?? {}, 2).otlpEndpoint).toBeUndefined();
  });

  it("publishes the ports the image exposes and mounts its DATA_DIR volume", async () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    const exposed = /^EXPOSE[ \t]+(\S.*)$/m.exec(dockerfile)?.[1]?.split(/\s+/).map(Number);
    const dataDir = /^ENV .*DATA_DIR=(\S+)/m.exec(dockerfile)?.[1];
    const api = (await services({}))["api"]!;
    expect(api.ports?.map((port) => (typeof port === "string" ? Number(port.split(":").at(-1)) : port.target)).sort()).toEqual(exposed?.sort());
    expect(api.volumes?.some((volume) => volume.split(":")[1] === dataDir)).toBe(true);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it("installs no font package in the image: the fonts text layers draw with come with npm ci --omit=dev", () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    expect(dockerfile).not.toMatch(/apt-get install[^\n]*\bfonts-/);
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    for (const folder of shippedFontFolders()) {
      const name = path
        .relative(path.join(ROOT, "node_modules"), folder)
        .split(path.sep)
        .slice(0, folder.includes("@") ? 2 : 1)
        .join("/");
      expect(dependencies, name).toHaveProperty([name]);
    }
  });

  it("installs the native Tesseract the image's OCR engine runs", () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    expect(/^ENV .*OCR_ENGINE=(\S+)/m.exec(dockerfile)?.[1]).toBe("tesseract-native");
    expect(dockerfile).toMatch(/apt-get install[^\n]*\btesseract-ocr\b/);
  });

  it("gives console invitation links (`itsctl account invite` in the container) an address the host reaches", async () => {
    const api = (await services({}))["api"]!;
    const config = loadConfig(api.environment ?? {}, 2);
    const base = new URL(config.publicBaseUrl ?? "");
    expect(base.protocol).toBe("https:");
    const published = (api.ports ?? []).map((port) => (typeof port === "string" ? port : `${(port as { published?: string }).published}:${port.target}`));
    expect(published.some((port) => port.endsWith(`${base.port}:${config.port}`))).toBe(true);
  });
});
