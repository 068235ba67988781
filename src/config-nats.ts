import path from "node:path";
import { type NatsAuth, splitNatsUrl } from "./adapters/nats/nats-credentials.ts";
import { ConfigError } from "./config-error.ts";

/**
 * NATS_URL and at most one way of authenticating: in the URL, a token, or an nkey seed file. One
 * reading for everything kept on NATS (the bus, rate limits, results, an event store kind).
 */
export const natsFrom = (e: {
  readonly NATS_URL?: string;
  readonly NATS_TOKEN?: string;
  readonly NATS_NKEY_SEED_FILE?: string;
}): { readonly natsUrl: string | undefined; readonly natsAuth: NatsAuth } => {
  const given: Array<readonly [string, NatsAuth]> = [];
  if (e.NATS_TOKEN !== undefined) given.push(["NATS_TOKEN", { kind: "token", token: e.NATS_TOKEN }]);
  if (e.NATS_NKEY_SEED_FILE !== undefined) given.push(["NATS_NKEY_SEED_FILE", { kind: "nkey", seedFile: path.resolve(e.NATS_NKEY_SEED_FILE) }]);
  if (e.NATS_URL === undefined) {
    if (given.length > 0) throw new ConfigError(`${given.map(([name]) => name).join(", ")} set without NATS_URL`);
    return { natsUrl: undefined, natsAuth: { kind: "none" } };
  }
  let split: ReturnType<typeof splitNatsUrl>;
  try {
    split = splitNatsUrl(e.NATS_URL);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (split.auth.kind !== "none") given.unshift(["credentials in NATS_URL", split.auth]);
  if (given.length > 1) throw new ConfigError(`NATS: give one way of authenticating, not ${given.map(([name]) => name).join(" and ")}`);
  return { natsUrl: split.servers, natsAuth: given[0]?.[1] ?? { kind: "none" } };
};
