import { Effect } from "effect";
import { type AccountEvent, accountStream } from "../../domain/account.ts";
import { accountTemplatesStream } from "../../domain/account-templates/account-template.ts";
import { echo } from "../../domain/echo.ts";
import { holderStream } from "../../domain/holder-access.ts";
import { type QuotaEvent, quotaStream } from "../../domain/quota-ledger.ts";
import { replayUsage, usageLineKey } from "../../domain/usage-replay.ts";
import { webhookEndpointsStream } from "../../domain/webhook-endpoints.ts";
import { Clock } from "../../ports/clock.ts";
import { EventStore, type RecordedEvent } from "../../ports/event-store.ts";
import { KeyProjection, UsageProjection } from "../../ports/projections.ts";
import { actorOf } from "../access/actor.ts";
import { NotFound } from "../errors.ts";
import { accountEventCodec } from "../event-sourcing/events/account-events.ts";
import { accountTemplateEventCodec } from "../event-sourcing/events/account-template-events.ts";
import { decodeEvent, type EventCodec } from "../event-sourcing/events/event-codec.ts";
import { holderAccessEventCodec } from "../event-sourcing/events/holder-access-events.ts";
import { quotaEventCodec } from "../event-sourcing/events/quota-events.ts";
import { webhookEndpointEventCodec } from "../event-sourcing/events/webhook-events.ts";
import {
  describeAccountEvent,
  describeHolderEvent,
  describeJobEvent,
  describeQuotaEvent,
  describeTemplateEvent,
  describeWebhookEndpointEvent,
} from "./audit-event-descriptions.ts";
import { replayAccountJobs } from "./audit-job-replay.ts";
import { replayKeys } from "./audit-key-replay.ts";
import { type AuditRange, periodsBetween } from "./audit-range.ts";
import type { AuditEntry, AuditReport } from "./audit-report.ts";
import { type Read, verifyReplay } from "./audit-verification.ts";

/**
 * The audit of one account: its quota ledgers and key lifecycle replayed from the event store
 * alone, printed as a history, then checked against the projections (usage, keys) and against the
 * ledgers' own state (audit-verification.ts). Projections are read first, as one snapshot each, and
 * compared with the events up to the position they reached, so a projection that is merely behind
 * is not a mismatch.
 */
const decodeAll = <Event extends { readonly type: string }>(codec: EventCodec<Event>, events: ReadonlyArray<RecordedEvent>) =>
  Effect.forEach(events, (recorded) => Effect.map(decodeEvent(codec, recorded), (event): Read<Event> => ({ recorded, event })));
const atOf = (event: RecordedEvent): string => (typeof event.data["at"] === "string" ? event.data["at"] : event.recordedAt);

/** A history entry for an event that concerns no request. */
const entryOf = (recorded: RecordedEvent, what: string, keyId: string | null): AuditEntry => ({
  position: recorded.globalPosition,
  at: atOf(recorded),
  type: recorded.type,
  what,
  keyId,
  requestId: null,
  operation: null,
  period: null,
  actor: actorOf(recorded.metadata) ?? null,
});

type AuditCount = "reserved" | "committed" | "released" | "refusedRequests" | "refusedUnits";

/** What one quota event adds to the report's counts: units, and for a refusal one request and the units it asked for. */
const countsOf = (type: QuotaEvent["type"], units: number): Partial<Record<AuditCount, number>> => {
  switch (type) {
    case "QuotaReserved":
      return { reserved: units };
    case "QuotaCommitted":
      return { committed: units };
    case "QuotaReleased":
      return { released: units };
    case "QuotaReservationRefused":
      return { refusedRequests: 1, refusedUnits: units };
  }
};

export const auditAccount = (accountId: string, range: AuditRange) =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const now = (yield* Clock).now();

    // Projections first: the store read afterwards holds at least everything they applied.
    const usage = yield* (yield* UsageProjection).usageOf(accountId);
    const keys = yield* (yield* KeyProjection).keysOf(accountId);

    const accountEvents = yield* decodeAll(accountEventCodec, yield* store.readStream(accountStream(accountId)));
    const opened = accountEvents.map(({ event }) => event).find((event) => event.type === "AccountOpened");
    if (opened === undefined) return yield* new NotFound({ message: `No account ${echo(accountId)}.` });

    const first = range.from !== undefined && range.from > new Date(opened.data.at) ? range.from : new Date(opened.data.at);
    const last = range.to !== undefined && range.to <= now ? new Date(range.to.getTime() - 1) : now;
    const periods = first <= last ? periodsBetween(first, last) : [];
    const ledgers = yield* Effect.forEach(periods, (period) =>
      store.readStream(quotaStream(accountId, period)).pipe(
        Effect.flatMap((events) => decodeAll(quotaEventCodec, events)),
        Effect.map((events) => ({ period, events })),
      ),
    );
    const holderEvents = yield* decodeAll(holderAccessEventCodec, yield* store.readStream(holderStream(accountId)));
    const templateEvents = yield* decodeAll(accountTemplateEventCodec, yield* store.readStream(accountTemplatesStream(accountId)));
    const webhookEvents = yield* decodeAll(webhookEndpointEventCodec, yield* store.readStream(webhookEndpointsStream(accountId)));
    const jobs = yield* replayAccountJobs(accountId);

    const inRange = ({ recorded }: Read<unknown>) => {
      const at = new Date(atOf(recorded));
      return (range.from === undefined || at >= range.from) && (range.to === undefined || at < range.to);
    };

    // History and totals: what happened in the range, each quota event attributed to its request.
    const history: Array<AuditEntry> = [
      ...accountEvents.filter(inRange).map(({ recorded, event }) => {
        const { what, keyId } = describeAccountEvent(event);
        return entryOf(recorded, what, keyId);
      }),
      ...holderEvents.filter(inRange).map(({ recorded, event }) => entryOf(recorded, describeHolderEvent(event), null)),
      ...templateEvents.filter(inRange).map(({ recorded, event }) => entryOf(recorded, describeTemplateEvent(event), null)),
      ...webhookEvents.filter(inRange).map(({ recorded, event }) => entryOf(recorded, describeWebhookEndpointEvent(event), null)),
    ];
    const jobTotals = { accepted: 0, succeeded: 0, failed: 0, unitsCharged: 0, unitsReleased: 0 };
    for (const { accepted, events } of jobs) {
      for (const read of events.filter(inRange)) {
        const { recorded, event } = read;
        if (event.type === "JobAccepted") jobTotals.accepted += 1;
        if (event.type === "JobSucceeded") {
          jobTotals.succeeded += 1;
          jobTotals.unitsCharged += accepted.units;
        }
        if (event.type === "JobFailed") {
          jobTotals.failed += 1;
          jobTotals.unitsReleased += accepted.units;
        }
        history.push({
          ...entryOf(recorded, describeJobEvent(event, accepted), accepted.keyId),
          requestId: accepted.requestId,
          operation: accepted.operation,
        });
      }
    }
    const totalLines = new Map<string, AuditReport["totals"]["lines"][number]>();
    const zero = { reserved: 0, committed: 0, released: 0, refusedRequests: 0, refusedUnits: 0 };
    const totals = { ...zero };
    for (const { events } of ledgers) {
      const { attributions } = replayUsage(events.map(({ event }) => event));
      events.forEach((read, index) => {
        if (!inRange(read)) return;
        const { recorded, event } = read;
        const attribution = attributions[index];
        if (attribution !== undefined) {
          const increments = countsOf(event.type, attribution.units);
          const key = usageLineKey(attribution);
          const line = totalLines.get(key) ?? { period: attribution.period, operation: attribution.operation, keyId: attribution.keyId, ...zero };
          const added = { ...line };
          for (const [field, increment] of Object.entries(increments) as Array<[AuditCount, number]>) {
            totals[field] += increment;
            added[field] += increment;
          }
          totalLines.set(key, added);
        }
        history.push({
          ...entryOf(recorded, describeQuotaEvent(event, attribution?.operation ?? "unattributed", attribution?.units ?? 1), attribution?.keyId ?? null),
          requestId: attribution?.requestId ?? (typeof event.data.requestId === "string" ? event.data.requestId : null),
          operation: attribution?.operation ?? null,
          period: attribution?.period ?? null,
        });
      });
    }
    history.sort((a, b) => a.position - b.position);

    const { usageProjectionPosition, keyProjectionPosition, compared, differences, notes } = verifyReplay(
      { accountId, accountEvents, ledgers, periods },
      { usage, keys },
    );
    const storePosition = Math.max(
      0,
      ...accountEvents.map(({ recorded }) => recorded.globalPosition),
      ...ledgers.flatMap(({ events }) => events.map(({ recorded }) => recorded.globalPosition)),
    );
    const replayed = replayKeys(accountEvents.map(({ event }): AccountEvent => event));
    return {
      accountId,
      generatedAt: now.toISOString(),
      range: { from: range.from?.toISOString() ?? null, to: range.to?.toISOString() ?? null },
      periods,
      account: replayed.account!,
      history,
      totals: { ...totals, lines: [...totalLines.values()].sort((a, b) => usageLineKey(a).localeCompare(usageLineKey(b))) },
      jobs: jobTotals,
      keys: [...replayed.keys.values()],
      verification: { storePosition, usageProjectionPosition, keyProjectionPosition, compared, differences, notes },
      ok: differences.length === 0,
    } satisfies AuditReport;
  });
