import os from "node:os";
import { Command, Option } from "commander";
import { Cause, type Effect, Exit, Layer, ManagedRuntime } from "effect";
import { changePlan, createKey, DEFAULT_ROLL_GRACE_MS, deleteKey, listKeys, openAccount, rollKey } from "../../application/access/accounts.ts";
import type { Actor } from "../../application/access/actor.ts";
import { issueInvitation, revokeInvitations } from "../../application/access/holder-access.ts";
import { storeIdentityLayer } from "../../application/event-sourcing/store-identity.ts";
import { coreLayer, projectionsLayer, receiptLogLayer } from "../../composition.ts";
import type { Config } from "../../config.ts";
import { loadConfig } from "../../config.ts";
import { KEY_ID_PATTERN } from "../../domain/api-key.ts";
import { describeRestrictions } from "../../domain/describe-restrictions.ts";
import { PLAN_IDS, type PlanId } from "../../domain/plan.ts";
import { describeStore, type EventStoreSelection, storeLocationHelp } from "../../event-store-registry.ts";
import { defaultPublicBaseUrl } from "../http/server/public-base-url.ts";
import { loadServerSecrets } from "../security/server-secret.ts";
import { maskUrlSecrets } from "../security/url-secrets.ts";
import { registerAuditCommands } from "./audit-commands.ts";
import {
  allowIpArgument,
  durationArgument,
  expiresArgument,
  type KeyRestrictionOptions,
  monthlyLimitArgument,
  restrictionsOf,
  scopesArgument,
} from "./key-restriction-options.ts";
import { registerReceiptLogCommands } from "./receipt-log-commands.ts";
import { migrateStore, parseStoreSpec } from "./store-migrate.ts";

/**
 * itsctl: the operator's tool. It reads the same configuration as the server and appends to the
 * same event store, so running servers see what it does at once.
 */
const cliLayer = (config: Config) => Layer.merge(coreLayer(config, loadServerSecrets(config)), projectionsLayer(config));
type CliServices = Layer.Success<ReturnType<typeof cliLayer>>;

/**
 * The receipts log's commands also need the log and its key, named by the store's identity; only
 * they open it, so that no other command names a store that has no identity yet.
 */
const receiptsCliLayer = (config: Config) => {
  const secrets = loadServerSecrets(config);
  const core = coreLayer(config, secrets);
  return Layer.mergeAll(core, receiptLogLayer(config, secrets).pipe(Layer.provide(storeIdentityLayer), Layer.provide(core)));
};
type ReceiptsCliServices = Layer.Success<ReturnType<typeof receiptsCliLayer>>;

class CliError extends Error {}

const executeIn =
  <R>(layerOf: (config: Config) => Layer.Layer<R, unknown>) =>
  async <A, E>(useCase: Effect.Effect<A, E, R>): Promise<A> => {
    const config = loadConfig(process.env, os.availableParallelism());
    const runtime = ManagedRuntime.make(layerOf(config));
    try {
      const exit = await runtime.runPromiseExit(useCase);
      if (Exit.isSuccess(exit)) return exit.value;
      const failure = exit.cause.reasons.find(Cause.isFailReason)?.error as { message?: unknown } | undefined;
      throw new CliError(typeof failure?.message === "string" ? failure.message : Cause.pretty(exit.cause));
    } finally {
      await runtime.dispose();
    }
  };
const execute = executeIn<CliServices>(cliLayer);
const executeReceipts = executeIn<ReceiptsCliServices>(receiptsCliLayer);

/** The OS user itsctl runs as; a container's user may have no passwd entry, and then its uid stands in. */
const osUser = (): string => {
  try {
    return os.userInfo().username;
  } catch {
    return process.env["USER"] ?? `uid ${process.getuid?.() ?? "unknown"}`;
  }
};

/** Who is at the shell: recorded in every event itsctl appends. */
export const operator = (): Actor => ({ kind: "operator", tool: "itsctl", user: osUser(), host: os.hostname() });

const print = (json: boolean, value: unknown, human: string): void => {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
};

const planOption = () => new Option("--plan <plan>", "plan").choices(PLAN_IDS).makeOptionMandatory();

const keyIdArgument = (value: string): string => {
  const keyId = value.replace(/^its_/, "");
  if (!KEY_ID_PATTERN.test(keyId)) throw new CliError(`not a key id: ${value} (expected 16 characters a-z0-9, as 'key list' shows)`);
  return keyId;
};

export const itsctl = (): Command => {
  const program = new Command("itsctl").description("Operate the image transformation service: accounts, plans, API keys and the event store.");
  program.showHelpAfterError();

  const account = program.command("account").description("open accounts and change their plans");
  account
    .command("open")
    .description("open an account")
    .requiredOption("--email <email>", "the account holder's email")
    .option("--name <name>", "display name", "")
    .addOption(planOption())
    .option("--json", "print JSON")
    .action(async (options: { email: string; name: string; plan: PlanId; json?: boolean }) => {
      const opened = await execute(openAccount({ email: options.email, name: options.name, plan: options.plan }, operator()));
      print(Boolean(options.json), opened, `Opened account ${opened.id} (${opened.plan}) for ${opened.email}`);
    });
  account
    .command("set-plan")
    .description("change an account's plan; it applies to the next request")
    .requiredOption("--account <id>", "account id")
    .addOption(planOption())
    .option("--json", "print JSON")
    .action(async (options: { account: string; plan: PlanId; json?: boolean }) => {
      const changed = await execute(changePlan(options.account, options.plan, operator()));
      print(Boolean(options.json), changed, `Account ${changed.id} is now on the ${changed.plan} plan`);
    });

  account
    .command("invite")
    .description("invite the account's holder to the console: a one-use link, valid 24 hours, to set a password (also how a forgotten one is reset)")
    .requiredOption("--account <id>", "account id")
    .option("--revoke", "instead, revoke every outstanding invitation of the account")
    .option("--json", "print JSON")
    .action(async (options: { account: string; revoke?: boolean; json?: boolean }) => {
      if (options.revoke) {
        const { accountId, revoked } = await execute(revokeInvitations(options.account, operator()));
        const count = revoked.length === 1 ? "1 outstanding invitation" : `${revoked.length} outstanding invitations`;
        return print(
          Boolean(options.json),
          { accountId, revoked },
          revoked.length === 0
            ? `No outstanding invitations for ${accountId}; nothing revoked.`
            : `Revoked ${count} for ${accountId} (${revoked.join(", ")}): those links no longer work.`,
        );
      }
      const config = loadConfig(process.env, os.availableParallelism());
      const invitation = await execute(issueInvitation(options.account, operator()));
      const url = `${config.publicBaseUrl ?? defaultPublicBaseUrl(config.host, config.port)}/console/invite/${invitation.token}`;
      print(
        Boolean(options.json),
        { accountId: invitation.accountId, email: invitation.email, url, expiresAt: invitation.expiresAt },
        `Send this link to ${invitation.email}; it works once, until ${invitation.expiresAt}:\n${url}`,
      );
    });

  const key = program.command("key").description("make, list, roll and delete API keys");
  key
    .command("create")
    .description("make an API key; the key is printed once and never stored")
    .requiredOption("--account <id>", "account id")
    .option("--name <name>", "what the key is for", "default")
    .option("--scopes <list>", "operations the key may call, comma-separated: generate, ocr, virtual-tryon, templates (default: all)", scopesArgument)
    .option("--expires <when>", "when the key stops working: ISO-8601 or a duration from now (30d, 24h, 4s)", expiresArgument)
    .option("--allow-ip <cidrs>", "addresses the key may be used from, comma-separated CIDR ranges (IPv4, IPv6)", allowIpArgument)
    .option("--monthly-limit <n>", "the most units the key may spend in a month, within the account's quota", monthlyLimitArgument)
    .option("--json", "print JSON")
    .action(async (options: KeyRestrictionOptions & { account: string; name: string; json?: boolean }) => {
      const created = await execute(createKey(options.account, options.name, operator(), restrictionsOf(options)));
      print(
        Boolean(options.json),
        created,
        `Key ${created.id} (${created.name}; ${describeRestrictions(created.restrictions)}) created. It is shown only now; store it safely:\n${created.key}`,
      );
    });
  key
    .command("list")
    .description("list an account's working keys with their restrictions and last use (never their secrets)")
    .requiredOption("--account <id>", "account id")
    .option("--json", "print JSON")
    .action(async (options: { account: string; json?: boolean }) => {
      const keys = await execute(listKeys(options.account));
      print(
        Boolean(options.json),
        keys,
        keys.length === 0
          ? "No active keys."
          : keys
              .map(
                (k) =>
                  `${k.id}  ${k.prefix}…  ${k.name}  ${k.createdAt}  ${describeRestrictions({ scopes: k.scopes, expiresAt: k.expiresAt, allowedIps: k.allowedIps, monthlyLimit: k.monthlyLimit })}  last used ${k.lastUsedAt ?? "never"}`,
              )
              .join("\n"),
      );
    });
  key
    .command("roll")
    .description("replace a key: a new one with the same name and restrictions, printed once; the old one works until the grace ends")
    .requiredOption("--account <id>", "account id")
    .requiredOption("--key <keyId>", "the key to replace (its id or its_<id> prefix)", keyIdArgument)
    .option("--grace <duration>", "how long the old key keeps working (4s, 30m, 24h, 7d)", durationArgument, DEFAULT_ROLL_GRACE_MS)
    .option("--json", "print JSON")
    .action(async (options: { account: string; key: string; grace: number; json?: boolean }) => {
      const rolled = await execute(rollKey(options.account, options.key, options.grace, operator()));
      print(
        Boolean(options.json),
        rolled,
        `Key ${rolled.id} (${rolled.name}) replaces ${rolled.rolledFrom.id}, which works until ${rolled.rolledFrom.expiresAt}. ` +
          `It is shown only now; store it safely:\n${rolled.key}`,
      );
    });
  key
    .command("delete")
    .description("delete a key; every instance refuses it within a second")
    .requiredOption("--account <id>", "account id")
    .requiredOption("--key <keyId>", "the key id (or its its_<id> prefix)", keyIdArgument)
    .option("--json", "print JSON")
    .action(async (options: { account: string; key: string; json?: boolean }) => {
      await execute(deleteKey(options.account, options.key, operator()));
      print(Boolean(options.json), { id: options.key, deleted: true }, `Key ${options.key} deleted`);
    });

  const store = program.command("store").description("move the event store");
  store
    .command("migrate")
    .description("copy every event, in order, into an empty store of any kind, then verify count and SHA-256; stop the service first")
    .requiredOption("--from <store>", `source: ${storeLocationHelp}`, parseStoreSpec)
    .requiredOption("--to <store>", `target (empty): ${storeLocationHelp}`, parseStoreSpec)
    .option("--json", "print JSON")
    .action(async (options: { from: EventStoreSelection; to: EventStoreSelection; json?: boolean }) => {
      const copied = await migrateStore(options.from, options.to);
      const [from, to] = [describeStore(options.from), describeStore(options.to)];
      print(
        Boolean(options.json),
        { from, to, ...copied },
        `Copied ${copied.count} events from ${from} to ${to}; the target holds the same ${copied.count} events, SHA-256 ${copied.checksum}`,
      );
    });
  const ledger = registerAuditCommands(program, execute, operator, () => loadConfig(process.env, os.availableParallelism()).ledgerSealIntervalSeconds);
  registerReceiptLogCommands(ledger, executeReceipts);
  return program;
};

export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  try {
    await itsctl().parseAsync([...argv]);
    return 0;
  } catch (error) {
    // A store that cannot be reached may be named by its URL: passwords and tokens in it are masked.
    process.stderr.write(`itsctl: ${maskUrlSecrets(error instanceof Error ? error.message : String(error))}\n`);
    return 1;
  }
};
