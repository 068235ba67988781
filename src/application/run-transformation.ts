import { Effect, Exit } from "effect";
import { billingPeriodOf, secondsUntilReset } from "../domain/billing-period.ts";
import { PLANS, planIncludes, type Feature, type PlanId } from "../domain/plan.ts";
import { quotaLedgerDecider, quotaStream } from "../domain/quota-ledger.ts";
import { transformationRequestDecider, transformationStream } from "../domain/transformation-request.ts";
import { Clock } from "../ports/clock.ts";
import { Ids } from "../ports/ids.ts";
import type { Principal } from "./authenticate.ts";
import { handleCommand } from "./command-handler.ts";
import { InsufficientPermissions, QuotaExceeded } from "./errors.ts";
import { ServiceSettings } from "./settings.ts";

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

/** The plan must include the feature: checked before any quota is touched. */
export const ensureFeature = (principal: Principal, feature: Feature, what: string = feature) =>
  planIncludes(principal.account.plan, feature)
    ? Effect.void
    : Effect.fail(
        new InsufficientPermissions({ message: `The ${principal.account.plan} plan does not include ${what}.` }),
      );

/**
 * One billable transformation: reserve a unit of the month's quota, run `process`, then commit
 * the unit on success or release it on failure, so only successes count. Every step is an event.
 */
export const runTransformation = <A, E, R>(
  principal: Principal,
  operation: Feature,
  parameters: Readonly<Record<string, string>>,
  process: Effect.Effect<Processed<A>, E, R>,
) =>
  Effect.gen(function* () {
    yield* ensureFeature(principal, operation);
    const ids = yield* Ids;
    const clock = yield* Clock;
    const settings = yield* ServiceSettings;
    const { accountId, plan } = principal.account;
    const keyId = principal.key.keyId;
    const requestId = ids.uuid();
    const now = clock.now();
    const period = billingPeriodOf(now);
    const ledger = quotaStream(accountId, period.id);
    const metadata = { requestId, keyId };

    const reserved = yield* handleCommand(
      quotaLedgerDecider,
      ledger,
      {
        type: "ReserveQuota",
        requestId,
        accountId,
        keyId,
        operation,
        period: period.id,
        limit: PLANS[plan].monthlyTransformations,
        expiresAt: new Date(now.getTime() + settings.reservationTtlMs),
        now,
      },
      metadata,
    );
    if (reserved.events.some((event) => event.type === "QuotaReservationRefused")) {
      return yield* quotaExceeded(plan, now);
    }

    const request = transformationStream(requestId);
    yield* handleCommand(
      transformationRequestDecider,
      request,
      { type: "RequestTransformation", requestId, accountId, keyId, operation, parameters, now },
      metadata,
    );

    const exit = yield* Effect.exit(process);
    const finished = clock.now();
    const processingTimeMs = finished.getTime() - now.getTime();
    if (Exit.isFailure(exit)) {
      const reason = exit.cause.reasons[0];
      const code = reason?._tag === "Fail" ? String((reason.error as { _tag?: unknown })._tag ?? "Failure") : "Defect";
      yield* handleCommand(quotaLedgerDecider, ledger, { type: "ReleaseQuota", requestId, reason: code, now: finished }, metadata);
      yield* handleCommand(transformationRequestDecider, request, { type: "FailTransformation", code, now: finished }, metadata);
      return yield* Effect.failCause(exit.cause);
    }
    yield* handleCommand(quotaLedgerDecider, ledger, { type: "CommitQuota", requestId, now: finished }, metadata).pipe(
      Effect.catchTag("CommandRejected", () =>
        // The reservation expired and others took the last units meanwhile: the result is not delivered.
        handleCommand(transformationRequestDecider, request, { type: "FailTransformation", code: "QuotaExceeded", now: finished }, metadata).pipe(
          Effect.andThen(Effect.fail(quotaExceeded(plan, finished))),
        ),
      ),
    );
    yield* handleCommand(
      transformationRequestDecider,
      request,
      { type: "CompleteTransformation", processingTimeMs, output: exit.value.output, now: finished },
      metadata,
    );
    return { requestId, value: exit.value.value, processingTimeMs } satisfies Transformed<A>;
  }).pipe(Effect.uninterruptible);
