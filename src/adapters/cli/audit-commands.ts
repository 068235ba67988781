import type { Command } from "commander";
import { Effect } from "effect";
import { auditAccount, parseAuditRange } from "../../application/audit.ts";
import { rebuildProjection } from "../../application/projection-runner.ts";
import type { Clock } from "../../ports/clock.ts";
import type { EventStore } from "../../ports/event-store.ts";
import { KeyProjection, UsageProjection } from "../../ports/projections.ts";
import { auditReportText, differencesSummary } from "./audit-report-text.ts";

/** How itsctl runs a use case with the core services and the projections; it throws with the failure's message. */
export type Execute<R> = <A, E>(useCase: Effect.Effect<A, E, R>) => Promise<A>;

class AuditFailed extends Error {}

const PROJECTIONS = ["usage", "keys"] as const;

/** `itsctl audit` and `itsctl projections rebuild`. */
export const registerAuditCommands = (program: Command, execute: Execute<EventStore | Clock | UsageProjection | KeyProjection>) => {
  program
    .command("audit")
    .description("replay an account's quota ledger and key lifecycle from the event store, print the history, and check the projections against it (exit 1 on any difference)")
    .requiredOption("--account <id>", "account id")
    .option("--from <date>", "first day (YYYY-MM-DD, YYYY-MM or an ISO date-time)")
    .option("--to <date>", "last day, included (YYYY-MM-DD, YYYY-MM or an ISO date-time)")
    .option("--json", "print the report as JSON")
    .action(async (options: { account: string; from?: string; to?: string; json?: boolean }) => {
      const report = await execute(parseAuditRange(options.from, options.to).pipe(Effect.flatMap((range) => auditAccount(options.account, range))));
      process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${auditReportText(report)}\n`);
      if (!report.ok) throw new AuditFailed(`audit found ${report.verification.differences.length} difference(s): ${differencesSummary(report)}`);
    });

  program
    .command("projections")
    .description("maintain the projections (usage, key directory)")
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
          const chosen = [yield* UsageProjection, yield* KeyProjection].filter((p) => options.name === undefined || p.name === options.name);
          return yield* Effect.forEach(chosen, (projection) => rebuildProjection(projection).pipe(Effect.map((position) => ({ name: projection.name, position }))));
        }),
      );
      process.stdout.write(
        options.json ? `${JSON.stringify(rebuilt, null, 2)}\n` : `${rebuilt.map((r) => `Rebuilt ${r.name} up to position ${r.position}`).join("\n")}\n`,
      );
    });
};
