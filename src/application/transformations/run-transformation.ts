import { Cause, Effect, Exit, Option } from "effect";
import { billingPeriodOf, secondsUntilReset } from "../../domain/billing-period.ts";
import { type Feature, type PlanId, planIncludes, PLANS } from "../../domain/plan.ts";
import { quotaStream } from "../../domain/quota-ledger.ts";
import { transformationStream } from "../../domain/transformation-request.ts";
import { Clock } from "../../ports/clock.ts";
import { EngineTenant } from "../../ports/engines/engine-tenant.ts";
import { Ids } from "../../ports/ids.ts";
import type { Principal } from "../access/authenticate.ts";
import { InsufficientPermissions, KeyQuotaExceeded, QuotaExceeded } from "../errors.ts";
import { handleCommand } from "../event-sourcing/command-handler.ts";
import { quotaLedgerStreamType } from "../event-sourcing/events/quota-events.ts";
import { transformationStreamType } from "../event-sourcing/events/transformation-events.ts";
import { ServiceSettings } from "../settings.ts";
import { CallerRequestId } from "./caller-request-id.ts";

export interface Processed<A> {
  readonly value: A;
  /** What the audit trail records of the outcome (format, size, …). */
  readonly output: Readonly<Record<string, string>>;
}

export interface Transformed<A> {
  readonly requestId: string;
  readonly value: A;
  readonly processingTimeMs: number;
}

const quotaExceeded = (plan: PlanId, now: Date) => {
  const period = billingPeriodOf(now);
  return new QuotaExceeded({
    limit: PLANS[plan].monthlyTransformations ?? 0,
    period: period.id,
    retryAfterSeconds: secondsUntilReset(period, now),
  });
};

/** A principal whose plan includes the feature: made only by `entitle`, the one place the plan's features are checked. */
export interface Entitled {
  readonly principal: Principal;
  readonly feature: Feature;
}

/** The plan must include the feature: checked before any quota is touched; runTransformation takes only its proof. */
export const entitle = (principal: Principal, feature: Feature): Effect.Effect<Entitled, InsufficientPermissions> =>
  planIncludes(principal.account.plan, feature)
    ? Effect.succeed({ principal, feature })
    : Effect.fail(new InsufficientPermissions({ message: `The ${principal.account.plan} plan does not include ${feature}.` }));

/** What a use case asks to be billed for: the entitled caller, what the audit records of the call, its units and its work. */
export interface TransformationPlan<A, E, R> {
  readonly entitled: Entitled;
  readonly parameters: Readonly<Record<string, string>>;
  readonly process: Effect.Effect<Processed<A>, E, R>;
  readonly units: number;
}

/** A reservation made, and the request recorded: what finishing the transformation needs. */
export interface Reservation {
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly plan: PlanId;
  /** When it was reserved: the processing time counts from here. */
  readonly reservedAt: Date;
}

const contextOf = ({ requestId, accountId, keyId }: Pick<Reservation, "requestId" | "accountId" | "keyId">) => ({
  actor: { kind: "api-key", keyId, accountId } as const,
  requestId,
});

/**
 * Reserves the plan's units of the month's quota in one decision (QuotaExceeded when they are not
 * free) and records the request. `holdMs`: how long the units stay held if nothing finishes them
 * (a synchronous request's reservation TTL; an accepted job's retention).
 */
export const reserveTransformation = (
  { principal, feature: operation }: Entitled,
  parameters: Readonly<Record<string, string>>,
  units: number,
  holdMs?: number,
) =>
  Effect.gen(function* () {
    const now = (yield* Clock).now();
    const { accountId, plan } = principal.account;
    const keyId = principal.key.keyId;
    const caller = yield* Effect.serviceOption(CallerRequestId);
    const requestId = Option.isSome(caller) ? caller.value.requestId : (yield* Ids).uuid();
    const period = billingPeriodOf(now);
    const context = contextOf({ requestId, accountId, keyId });
    const expiresAt = new Date(now.getTime() + (holdMs ?? (yield* ServiceSettings).reservationTtlMs));
    const limit = PLANS[plan].monthlyTransformations;
    const keyLimit = principal.key.restrictions.monthlyLimit;
    const reserve = { type: "ReserveQuota", requestId, accountId, keyId, operation, period: period.id, units, limit, keyLimit, expiresAt, now } as const;
    const reserved = yield* handleCommand(quotaLedgerStreamType, quotaStream(accountId, period.id), reserve, context).pipe(
      Effect.catchIf(
        (error) => error._tag === "CommandRejected" && error.code === "KEY_QUOTA_EXCEEDED",
        () => Effect.fail(new KeyQuotaExceeded({ limit: keyLimit ?? 0, period: period.id, retryAfterSeconds: secondsUntilReset(period, now) })),
      ),
    );
    if (reserved.events.some((event) => event.type === "QuotaReservationRefused")) return yield* quotaExceeded(plan, now);
    const request = { type: "RequestTransformation", requestId, accountId, keyId, operation, parameters, now } as const;
    yield* handleCommand(transformationStreamType, transformationStream(requestId), request, context);
    return { requestId, accountId, keyId, plan, reservedAt: now } satisfies Reservation;
  });

interface CompleteOptions {
  readonly settled?: boolean;
  readonly timedFromStart?: boolean;
  readonly keepWhenInterrupted?: boolean;
}

/** What uninterruptibleMask hands its body: the one way back to the caller's interruptibility. */
type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;

/** The work under `restore` (the only part a client that leaves can stop), then its units committed or released, uninterrupted. */
const finish = <A, E, R>(reservation: Reservation, process: Effect.Effect<Processed<A>, E, R>, restore: Restore, options: CompleteOptions) =>
  Effect.gen(function* () {
    const clock = yield* Clock;
    const { requestId, accountId, plan } = reservation;
    const ledger = quotaStream(accountId, billingPeriodOf(reservation.reservedAt).id);
    const request = transformationStream(requestId);
    const context = contextOf(reservation);
    const started = clock.now();
    // Engine slots are shared per account: the engines learn whose work this is.
    const exit = yield* Effect.exit(restore(Effect.provideService(process, EngineTenant, accountId)));
    const finished = clock.now();
    const processingTimeMs = finished.getTime() - (options.timedFromStart === true ? started : reservation.reservedAt).getTime();
    // A job stopped with its instance keeps its units for the run that takes it over.
    const handedOver = options.keepWhenInterrupted === true && Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause);
    if (options.settled === true || handedOver) {
      if (Exit.isFailure(exit)) return yield* Effect.failCause(exit.cause);
      return { requestId, value: exit.value.value, processingTimeMs } satisfies Transformed<A>;
    }
    if (Exit.isFailure(exit)) {
      const reason = exit.cause.reasons[0];
      const code =
        reason?._tag === "Fail" ? String((reason.error as { _tag?: unknown })._tag ?? "Failure") : reason?._tag === "Interrupt" ? "Interrupted" : "Defect";
      yield* handleCommand(quotaLedgerStreamType, ledger, { type: "ReleaseQuota", requestId, reason: code, now: finished }, context);
      yield* handleCommand(transformationStreamType, request, { type: "FailTransformation", code, now: finished }, context);
      return yield* Effect.failCause(exit.cause);
    }
    yield* handleCommand(quotaLedgerStreamType, ledger, { type: "CommitQuota", requestId, now: finished }, context).pipe(
      Effect.catchTag("CommandRejected", () =>
        // The reservation expired and others took the last units meanwhile: the result is not delivered.
        handleCommand(transformationStreamType, request, { type: "FailTransformation", code: "QuotaExceeded", now: finished }, context).pipe(
          Effect.andThen(Effect.fail(quotaExceeded(plan, finished))),
        ),
      ),
    );
    yield* handleCommand(
      transformationStreamType,
      request,
      { type: "CompleteTransformation", processingTimeMs, output: exit.value.output, now: finished },
      context,
    );
    return { requestId, value: exit.value.value, processingTimeMs } satisfies Transformed<A>;
  });

/**
 * Runs `process` for a reservation, then commits its units on success or releases them on
 * failure, so only successes count and a document is charged for all its pages or none. Every
 * step is an event. Only `process` can be interrupted (the client left, a deadline passed): the
 * engine work stops, and the reservation is still released; commit and release run to the end.
 * `settled`: the reservation was already committed or released by an earlier run of the same
 * work (a job taken over after its instance died): the work runs again and nothing is counted twice.
 * `keepWhenInterrupted`: a job's work stopped by its instance's shutdown leaves the units reserved
 * for the run that takes it over.
 * The processing time counts from the reservation (a synchronous request), or from the start of
 * the work (`timedFromStart`: a job, which may have waited in its queue).
 */
export const completeTransformation = <A, E, R>(reservation: Reservation, process: Effect.Effect<Processed<A>, E, R>, options: CompleteOptions = {}) =>
  Effect.uninterruptibleMask((restore) => finish(reservation, process, restore, options));

/**
 * One billable request, start to end: reserve, run, commit or release, in one uninterruptible
 * region whose only interruptible part is the work: a client that leaves while its units are being
 * reserved stops the work that follows, and the units are released.
 */
export const runTransformation = <A, E, R>(
  entitled: Entitled,
  parameters: Readonly<Record<string, string>>,
  process: Effect.Effect<Processed<A>, E, R>,
  units = 1,
) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(reserveTransformation(entitled, parameters, units), (reservation) => finish(reservation, process, restore, {})),
  );

/** A use case's plan run as one synchronous request. */
export const runPlanned = <A, E, R>(plan: TransformationPlan<A, E, R>) => runTransformation(plan.entitled, plan.parameters, plan.process, plan.units);
