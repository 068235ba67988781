import { describeActor } from "../../application/access/actor.ts";
import type { AuditReport } from "../../application/audit/audit-report.ts";
import type { ChainVerification } from "../../application/hash-chains/verify-chains.ts";

/** The audit report as an operator reads it in a terminal: the history, the totals, then the checks. */
const pad = (text: string, width: number) => text.padEnd(width);

const counts = (c: AuditReport["totals"]["lines"][number] | AuditReport["totals"]) =>
  `${c.committed} unit(s) committed, ${c.released} unit(s) released, ${c.reserved} unit(s) reserved, ${c.refusedRequests} request(s) refused (${c.refusedUnits} unit(s))`;

export const auditReportText = (report: AuditReport): string => {
  const { account, verification } = report;
  const lines: Array<string> = [];
  lines.push(`Audit of account ${report.accountId}: ${account.email} (${account.plan} plan), opened ${account.openedAt}`);
  lines.push(`Range: ${report.range.from ?? "the beginning"} to ${report.range.to ?? "now"}; ledgers replayed: ${report.periods.join(", ") || "none"}`);
  lines.push("");
  lines.push(`History (${report.history.length} events, store order)`);
  for (const entry of report.history) {
    const who = [
      entry.keyId === null ? "" : `key=${entry.keyId}`,
      entry.requestId === null ? "" : `request=${entry.requestId}`,
      `by ${describeActor(entry.actor ?? undefined)}`,
    ]
      .filter(Boolean)
      .join(" ");
    lines.push(`  #${pad(String(entry.position), 7)} ${entry.at}  ${pad(entry.type, 24)} ${pad(entry.what, 44)} ${who}`.trimEnd());
  }
  lines.push("");
  lines.push(`Totals: ${counts(report.totals)}`);
  for (const line of report.totals.lines) lines.push(`  ${line.period}  ${pad(line.operation, 14)} key=${line.keyId}: ${counts(line)}`);
  const { jobs } = report;
  lines.push(
    `Jobs: ${jobs.accepted} accepted, ${jobs.succeeded} succeeded (${jobs.unitsCharged} unit(s) charged), ${jobs.failed} failed (${jobs.unitsReleased} unit(s) released)`,
  );
  lines.push("");
  lines.push("Keys");
  for (const key of report.keys) {
    lines.push(
      `  ${key.keyId}  ${pad(JSON.stringify(key.name), 20)} issued ${key.createdAt}  ${key.revokedAt === null ? "active" : `revoked ${key.revokedAt}`}`,
    );
  }
  lines.push("");
  lines.push(
    `Verification: ${verification.compared} values compared with the usage projection (position ${verification.usageProjectionPosition}), ` +
      `the key projection (position ${verification.keyProjectionPosition}) and the ledgers' state (store at position ${verification.storePosition})`,
  );
  for (const note of verification.notes) lines.push(`  note: ${note}`);
  for (const d of verification.differences) {
    lines.push(`  DIFFERENCE in the ${d.source}: ${d.subject} ${d.field}: replayed ${JSON.stringify(d.replayed)}, recorded ${JSON.stringify(d.recorded)}`);
  }
  lines.push(
    report.ok
      ? "Result: OK, the projections and the ledgers agree with the event store"
      : `Result: ${verification.differences.length} DIFFERENCE(S) between the event store and what was recorded`,
  );
  return lines.join("\n");
};

/** One line naming the differences, for the error the CLI exits with. */
export const differencesSummary = (report: AuditReport): string =>
  report.verification.differences
    .slice(0, 5)
    .map((d) => `${d.source}: ${d.subject} ${d.field} replayed ${JSON.stringify(d.replayed)}, recorded ${JSON.stringify(d.recorded)}`)
    .join("; ") + (report.verification.differences.length > 5 ? `; and ${report.verification.differences.length - 5} more` : "");

/** The chain and seal verification, as printed before the replay (or alone, with --verify-only). */
export const chainVerificationText = (ledger: ChainVerification, speed: { readonly seconds: number; readonly eventsPerSecond: number }): string => {
  const lines: Array<string> = [];
  lines.push(`Ledger: ${ledger.events} events in ${ledger.streams} streams verified in ${speed.seconds} s (${speed.eventsPerSecond} events/s)`);
  if (ledger.unchained.events > 0) {
    lines.push(
      `  ${ledger.unchained.events} event(s) unchained before position ${ledger.unchained.chainedFrom ?? "(none chained yet)"}: written before hash chaining began; their content cannot be verified`,
    );
  }
  lines.push(
    ledger.seal === null
      ? "  no seal yet: a stream cut short cannot be seen (itsctl ledger seal)"
      : `  held to the ${ledger.seal.source === "export" ? "exported" : "latest"} seal (revision ${ledger.seal.revision}, ${ledger.seal.sealedAt}): ${ledger.seal.streams} stream heads, root ${ledger.seal.root}`,
  );
  for (const d of ledger.damage) lines.push(`  DAMAGE in stream ${d.streamName} at revision ${d.revision}: ${d.kind} (${d.detail})`);
  lines.push(ledger.ok ? "  chains and seal: OK" : `  ${ledger.damage.length} DAMAGED stream(s)`);
  return lines.join("\n");
};
