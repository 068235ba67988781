import fs from "node:fs";
import { performance } from "node:perf_hooks";
import type { Command } from "commander";
import { Effect, Schema } from "effect";
import type { Actor } from "../../application/access/actor.ts";
import { auditAccount } from "../../application/audit/audit.ts";
import { parseAuditRange } from "../../application/audit/audit-range.ts";
import { rebuildProjection } from "../../application/event-sourcing/projection-runner.ts";
import { makeStreamSealer } from "../../application/hash-chains/seal-stream-heads.ts";
import { type ExportedSeal, exportLatestSeal } from "../../application/hash-chains/sealed-heads.ts";
import { verifyChains } from "../../application/hash-chains/verify-chains.ts";
import type { ChainCrypto } from "../../ports/chain-crypto.ts";
import type { Clock } from "../../ports/clock.ts";
import type { EventStore } from "../../ports/event-store.ts";
import { JobProjection, KeyProjection, UsageProjection } from "../../ports/projections.ts";
import { auditReportText, chainVerificationText, differencesSummary } from "./audit-report-text.ts";

/** How itsctl runs a use case with the core services and the projections; it throws with the failure's message. */
export type Execute<R> = <A, E>(useCase: Effect.Effect<A, E, R>) => Promise<A>;

class AuditFailed extends Error {}

const PROJECTIONS = ["usage", "keys", "jobs"] as const;

const ExportedSealSchema = Schema.Struct({
  format: Schema.Literals(["its-ledger-seal/v1", "its-ledger-seal/v2"]),
  sealRevision: Schema.Number,
  sealedAt: Schema.String,
  streams: Schema.Number,
  root: Schema.String,
  intervalSeconds: Schema.optionalKey(Schema.Number),
  publicKey: Schema.String,
  signature: Schema.String,
  heads: Schema.Array(Schema.Struct({ stream: Schema.String, revision: Schema.Number, mac: Schema.String })),
});

const readSealFile = (file: string): ExportedSeal => {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new AuditFailed(`cannot read the seal ${file}: ${(error as Error).message}`);
  }
  try {
    return Schema.decodeUnknownSync(ExportedSealSchema)(JSON.parse(text));
  } catch (error) {
    throw new AuditFailed(`${file} is not an exported ledger seal: ${(error as Error).message}`);
  }
};

/**
 * `itsctl audit`, `itsctl ledger` and `itsctl projections rebuild`; `sealIntervalSeconds`:
 * LEDGER_SEAL_INTERVAL_SECONDS as configured. Returns the `ledger` command, for the receipts log's.
 */
export const registerAuditCommands = (
  program: Command,
  execute: Execute<EventStore | Clock | ChainCrypto | UsageProjection | KeyProjection | JobProjection>,
  operator: () => Actor,
  sealIntervalSeconds: () => number,
) => {
  program
    .command("audit")
    .description(
      "verify every event's hash chain and the latest seal, then replay an account's quota ledger, key lifecycle, jobs and webhook endpoints from the event store, print the history, and check the projections against it (exit 1 on any damage or difference)",
    )
    .option("--account <id>", "account id (required unless --verify-only)")
    .option("--from <date>", "first day (YYYY-MM-DD, YYYY-MM or an ISO date-time)")
    .option("--to <date>", "last day, included (YYYY-MM-DD, YYYY-MM or an ISO date-time)")
    .option("--verify-only", "only verify the chains and the seal of the whole store, and report the speed")
    .option("--seal <file>", "hold the store to this exported seal (itsctl ledger export) instead of the latest seal in the store")
    .option("--json", "print the report as JSON")
    .action(async (options: { account?: string; from?: string; to?: string; verifyOnly?: boolean; seal?: string; json?: boolean }) => {
      if (options.account === undefined && options.verifyOnly !== true) throw new AuditFailed("--account is required (or --verify-only)");
      const seal = options.seal === undefined ? undefined : readSealFile(options.seal);
      const started = performance.now();
      const intervalSeconds = sealIntervalSeconds();
      const ledger = await execute(verifyChains(seal === undefined ? { intervalSeconds } : { seal, intervalSeconds }));
      const seconds = (performance.now() - started) / 1000;
      const speed = { seconds: Number(seconds.toFixed(3)), eventsPerSecond: Math.round(ledger.events / Math.max(seconds, 1e-6)) };
      const damaged = () =>
        new AuditFailed(
          `the event store is damaged: ${ledger.damage
            .slice(0, 5)
            .map((d) => `stream ${d.streamName} revision ${d.revision}: ${d.kind}`)
            .join("; ")}${ledger.damage.length > 5 ? `; and ${ledger.damage.length - 5} more` : ""}`,
        );
      if (options.verifyOnly === true || !ledger.ok) {
        process.stdout.write(options.json ? `${JSON.stringify({ ledger, speed }, null, 2)}\n` : `${chainVerificationText(ledger, speed)}\n`);
        if (!ledger.ok) throw damaged();
        return;
      }
      const report = await execute(parseAuditRange(options.from, options.to).pipe(Effect.flatMap((range) => auditAccount(options.account!, range))));
      process.stdout.write(
        options.json ? `${JSON.stringify({ ...report, ledger }, null, 2)}\n` : `${chainVerificationText(ledger, speed)}\n\n${auditReportText(report)}\n`,
      );
      if (!report.ok) throw new AuditFailed(`audit found ${report.verification.differences.length} difference(s): ${differencesSummary(report)}`);
    });

  const ledger = program.command("ledger").description("seal the event store and export seals for auditors");
  ledger
    .command("seal")
    .description(
      "append a signed seal of every stream's head (a Merkle root) to the store, recording LEDGER_SEAL_INTERVAL_SECONDS; the server also seals every LEDGER_SEAL_INTERVAL_SECONDS",
    )
    .option("--json", "print the seal as JSON (as `ledger export` does)")
    .action(async (options: { json?: boolean }) => {
      const { seal, changed, events } = await execute(makeStreamSealer({ intervalSeconds: sealIntervalSeconds() }).seal(operator()));
      process.stdout.write(
        options.json
          ? `${JSON.stringify(seal, null, 2)}\n`
          : `Sealed ${seal.streams} stream heads (${changed} changed, in ${events} event(s)) under root ${seal.root} (seal revision ${seal.sealRevision}, ${seal.sealedAt})\n`,
      );
    });
  ledger
    .command("export")
    .description("print the latest seal with every head under it and the public key that checks its signature: keep it apart from the store")
    .option("--out <file>", "write it to this file instead of stdout")
    .action(async (options: { out?: string }) => {
      const seal = await execute(exportLatestSeal);
      if (seal === undefined) throw new AuditFailed("the store holds no seal yet: run `itsctl ledger seal`");
      const text = `${JSON.stringify(seal, null, 2)}\n`;
      if (options.out === undefined) process.stdout.write(text);
      else fs.writeFileSync(options.out, text, { flag: "wx" });
    });

  program
    .command("projections")
    .description("maintain the projections (usage, key directory, jobs)")
    .command("rebuild")
    .description("rebuild projections from scratch by replaying the event store; running servers keep serving the old rows until it commits")
    .option("--name <name>", `one projection (${PROJECTIONS.join(", ")}); all when absent`)
    .option("--json", "print JSON")
    .action(async (options: { name?: string; json?: boolean }) => {
      if (options.name !== undefined && !(PROJECTIONS as ReadonlyArray<string>).includes(options.name)) {
        throw new Error(`no projection ${options.name} (${PROJECTIONS.join(", ")})`);
      }
      const rebuilt = await execute(
        Effect.gen(function* () {
          const chosen = [yield* UsageProjection, yield* KeyProjection, yield* JobProjection].filter(
            (p) => options.name === undefined || p.name === options.name,
          );
          return yield* Effect.forEach(chosen, (projection) =>
            rebuildProjection(projection).pipe(Effect.map((position) => ({ name: projection.name, position }))),
          );
        }),
      );
      process.stdout.write(
        options.json ? `${JSON.stringify(rebuilt, null, 2)}\n` : `${rebuilt.map((r) => `Rebuilt ${r.name} up to position ${r.position}`).join("\n")}\n`,
      );
    });
  return ledger;
};
