import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { natsNames } from "../../src/adapters/nats/nats-names.ts";

/** The NATS server every machine here runs (JetStream on), and per-test namespaces on it. */
export const NATS_URL = process.env["NATS_URL"] ?? "nats://127.0.0.1:4222";

export const testNamespace = (): string => `t${randomUUID().replaceAll("-", "").slice(0, 12)}`;

/** Deletes what a namespace made on the server: the event stream, the KV buckets and the result bucket. */
export const dropNatsNamespace = async (namespace: string): Promise<void> => {
  const names = natsNames(namespace);
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    for (const stream of [names.eventStream, `KV_${names.checkpointBucket}`, `KV_${names.rateLimitBucket}`, `OBJ_${names.resultBucket}`]) {
      await jsm.streams.delete(stream).catch(() => false);
    }
  } finally {
    await nc.close();
  }
};

const DAEMON = ["--exec", "/usr/sbin/nats-server"];

/** Restart tests need the local server as this machine runs it (start-stop-daemon, /usr/sbin/nats-server). */
export const canRestartNats = /^nats:\/\/127\.0\.0\.1:4222$/.test(NATS_URL) && existsSync("/usr/sbin/nats-server") && existsSync("/sbin/start-stop-daemon");
const SERVER_ARGS = ["--", "-a", "127.0.0.1", "-p", "4222", "-js", "-sd", "/var/lib/nats-server", "-l", "/var/log/nats-server.log"];

/** Stops the local server (as it was started: start-stop-daemon), waiting until it has exited. */
export const stopNats = (): void => {
  execFileSync("start-stop-daemon", ["--stop", "--oknodo", "--retry", "TERM/10/KILL/5", ...DAEMON]);
};

export const startNats = (): void => {
  execFileSync("start-stop-daemon", ["--start", "--oknodo", "--background", ...DAEMON, ...SERVER_ARGS]);
};

/** Resolves once the server answers JetStream requests again. */
export const waitForNats = async (timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const nc = await connect({ servers: NATS_URL, timeout: 500 });
      try {
        await (await jetstreamManager(nc)).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
};
