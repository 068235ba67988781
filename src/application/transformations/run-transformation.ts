import { Effect, Exit } from "effect";
import { billingPeriodOf, secondsUntilReset } from "../../domain/billing-period.ts";
import { type Feature, type PlanId, planIncludes, PLANS } from "../../domain/plan.ts";
import { quotaStream } from "../../domain/quota-ledger.ts";
import { transformationStream } from "../../domain/transformation-request.ts";
import { Clock } from "../../ports/clock.ts";
import { EngineTenant } from "../../ports/engines/engine-tenant.ts";
import { Ids } from "../../ports/ids.ts";
import type { Principal } from "../access/authenticate.ts";
import { InsufficientPermissions, QuotaExceeded } from "../errors.ts";
import { handleCommand } from "../event-sourcing/command-handler.ts";
import { quotaLedgerStreamType } from "../event-sourcing/events/quota-events.ts";
import { transformationStreamType } from "../event-sourcing/events/transformation-events.ts";
import { ServiceSettings } from "../settings.ts";

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

/**
 * One billable request: reserve its `units` of the month's quota (1, or a document's pages) in one
 * decision, run `process`, then commit them on success or release them on failure, so only
 * successes count and a document is charged for all its pages or none. Every step is an event.
 * Only `process` can be interrupted (the client left, a deadline passed): the engine work stops,
 * and the reservation is still released; reserve, commit and release always run to the end.
 */
export const runTransformation = <A, E, R>(
  { principal, feature: operation }: Entitled,
  parameters: Readonly<Record<string, string>>,
  process: Effect.Effect<Processed<A>, E, R>,
  units = 1,
) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const ids = yield* Ids;
      const clock = yield* Clock;
      const settings = yield* ServiceSettings;
      const { accountId, plan } = principal.account;
      const keyId = principal.key.keyId;
      const requestId = ids.uuid();
      const now = clock.now();
      const period = billingPeriodOf(now);
      const ledger = quotaStream(accountId, period.id);
      const context = { actor: { kind: "api-key", keyId, accountId } as const, requestId };

      const reserved = yield* handleCommand(
        quotaLedgerStreamType,
        ledger,
        {
          type: "ReserveQuota",
          requestId,
          accountId,
          keyId,
          operation,
          period: period.id,
          units,
          limit: PLANS[plan].monthlyTransformations,
          expiresAt: new Date(now.getTime() + settings.reservationTtlMs),
          now,
        },
        context,
      );
      if (reserved.events.some((event) => event.type === "QuotaReservationRefused")) {
        return yield* quotaExceeded(plan, now);
      }

      const request = transformationStream(requestId);
      yield* handleCommand(
        transformationStreamType,
        request,
        { type: "RequestTransformation", requestId, accountId, keyId, operation, parameters, now },
        context,
      );

      // Engine slots are shared per account: the engines learn whose work this is.
      const exit = yield* Effect.exit(restore(Effect.provideService(process, EngineTenant, accountId)));
      const finished = clock.now();
      const processingTimeMs = finished.getTime() - now.getTime();
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
    }),
  );
