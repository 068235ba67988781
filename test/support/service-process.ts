import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { HttpsClient } from "./https-client.ts";

/**
 * The real service as a child process (`node src/main.ts`, as `npm start` runs it), on free
 * ports and its own DATA_DIR, and the real CLI against the same configuration.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const NODE = process.execPath;
const run = promisify(execFile);

export interface ServiceProcess {
  readonly dataDir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly httpsPort: number;
  readonly httpPort: number;
  readonly pid: number;
  readonly client: HttpsClient;
  readonly logs: () => string;
  /** How the process ended (undefined while it runs): a clean stop is code 0, no signal. */
  readonly exit: () => { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined;
  readonly stop: (signal?: NodeJS.Signals) => Promise<void>;
}

export const makeDataDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "its-test-"));

export const startService = async (options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<ServiceProcess> => {
  const dataDir = options.dataDir ?? makeDataDir();
  const env = { DATA_DIR: dataDir, PORT: "0", HTTP_PORT: "0", LOG_LEVEL: "info", ...options.env };
  // Logs go to a file, as they would to a log collector: nothing in this process has to drain a pipe.
  const logPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "its-log-")), "service.log");
  const log = fs.openSync(logPath, "a");
  // As `npm start` and the image run it: two malloc arenas (docs/operations.md, Operations → Memory).
  const child: ChildProcess = spawn(NODE, ["src/main.ts"], { cwd: ROOT, env: { MALLOC_ARENA_MAX: "2", ...process.env, ...env }, stdio: ["ignore", log, log] });
  fs.closeSync(log);
  const logs = () => fs.readFileSync(logPath, "utf8");
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.once("exit", (code, signal) => (exited = { code, signal }));
  const started = Date.now();
  let ports: { httpsPort: number; httpPort: number } | undefined;
  while (!ports) {
    const line = logs()
      .split("\n")
      .find((l) => l.includes('"msg":"listening"'));
    if (line) ports = JSON.parse(line) as { httpsPort: number; httpPort: number };
    else if (exited !== undefined) throw new Error(`service exited before listening:\n${logs()}`);
    else if (Date.now() - started > 60_000) throw new Error(`service did not start within 60 s:\n${logs()}`);
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const ca = fs.readFileSync(path.join(dataDir, "tls", "self-signed-cert.pem"));
  const client = new HttpsClient(`https://127.0.0.1:${ports.httpsPort}`, ca);
  // The contract check is compiled now, not in the middle of a test's timed requests.
  await client.contract();
  return {
    dataDir,
    env,
    httpsPort: ports.httpsPort,
    httpPort: ports.httpPort,
    pid: child.pid!,
    client,
    logs,
    exit: () => exited,
    stop: async (signal = "SIGTERM") => {
      client.close();
      if (exited !== undefined) return;
      const done = new Promise((resolve) => child.once("exit", resolve));
      child.kill(signal);
      await done;
    },
  };
};

/** Runs `itsctl` (bin/itsctl.mjs) with the service's configuration. */
export const itsctl = async (env: Readonly<Record<string, string>>, args: ReadonlyArray<string>) => {
  try {
    const { stdout, stderr } = await run(NODE, ["bin/itsctl.mjs", ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

/** Opens an account and makes `keys` keys for it through the CLI; returns the ids and secrets. */
/** The port of a service's metrics listener, started with METRICS_PORT (0: any free port), from its "listening" line. */
export const metricsPortOf = (service: ServiceProcess): number => {
  const listening = service
    .logs()
    .split("\n")
    .find((line) => line.includes('"msg":"listening"'));
  return (JSON.parse(listening!) as { metricsPort: number }).metricsPort;
};

export const provisionAccount = async (env: Readonly<Record<string, string>>, plan: "free" | "pro" | "enterprise", keys = 1) => {
  const opened = await itsctl(env, ["account", "open", "--email", `${plan}-${Date.now()}@example.com`, "--plan", plan, "--json"]);
  if (opened.code !== 0) throw new Error(opened.stderr);
  const accountId = (JSON.parse(opened.stdout) as { id: string }).id;
  const made: Array<{ id: string; key: string }> = [];
  for (let i = 0; i < keys; i++) {
    const created = await itsctl(env, ["key", "create", "--account", accountId, "--name", `key-${i}`, "--json"]);
    if (created.code !== 0) throw new Error(created.stderr);
    made.push(JSON.parse(created.stdout) as { id: string; key: string });
  }
  return { accountId, keys: made };
};

/** A memory figure of a process from /proc/<pid>/status (Linux), in MiB. */
const statusMiB = (pid: number, field: "VmRSS" | "VmHWM"): number => {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) / 1024;
};

/** Resident memory of a process now (VmRSS), in MiB. */
export const rssMiB = (pid: number): number => statusMiB(pid, "VmRSS");

/** Peak resident memory of a process so far (VmHWM), in MiB. */
export const peakRssMiB = (pid: number): number => statusMiB(pid, "VmHWM");

/** Resolves once the process `pid` is gone (e.g. after a signal it handles by finishing its work). */
export const waitForExit = async (pid: number): Promise<void> => {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
