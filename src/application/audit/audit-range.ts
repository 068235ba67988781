import { Effect } from "effect";
import { billingPeriodOf } from "../../domain/billing-period.ts";
import { echoJson } from "../../domain/echo.ts";
import { InvalidRequest } from "../errors.ts";

/** The time range an audit covers, as `itsctl audit --from/--to` and the audit route's query give it. */
export interface AuditRange {
  /** Inclusive. */
  readonly from: Date | undefined;
  /** Exclusive. */
  readonly to: Date | undefined;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** `YYYY-MM`, `YYYY-MM-DD` (UTC) or an ISO date-time; a date or month as `to` includes all of it. */
const parseBound = (field: "from" | "to", text: string): Date | InvalidRequest => {
  const invalid = new InvalidRequest({
    message: `${field} must be YYYY-MM, YYYY-MM-DD or an ISO 8601 date-time with a zone; got ${echoJson(text)}.`,
    details: [{ path: field, message: "not a date" }],
  });
  const whole = MONTH.test(text) ? `${text}-01` : text;
  if (!DATE.test(whole) && !DATE_TIME.test(whole)) return invalid;
  const instant = new Date(DATE.test(whole) ? `${whole}T00:00:00Z` : whole);
  if (Number.isNaN(instant.getTime())) return invalid;
  if (field === "from") return instant;
  if (MONTH.test(text)) return new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth() + 1, 1));
  return new Date(instant.getTime() + (DATE.test(text) ? 24 * 60 * 60_000 : 1));
};

export const parseAuditRange = (from: string | undefined, to: string | undefined): Effect.Effect<AuditRange, InvalidRequest> =>
  Effect.suspend(() => {
    const start = from === undefined ? undefined : parseBound("from", from);
    const end = to === undefined ? undefined : parseBound("to", to);
    if (start instanceof InvalidRequest) return Effect.fail(start);
    if (end instanceof InvalidRequest) return Effect.fail(end);
    if (start !== undefined && end !== undefined && start >= end) {
      return Effect.fail(new InvalidRequest({ message: "from must be before to.", details: [{ path: "from", message: "after to" }] }));
    }
    return Effect.succeed({ from: start, to: end });
  });

/** The billing periods from `first` to `last` (both months included). */
export const periodsBetween = (first: Date, last: Date): ReadonlyArray<string> => {
  const periods: Array<string> = [];
  for (let month = billingPeriodOf(first).startsAt; month <= last; month = billingPeriodOf(month).resetsAt) {
    periods.push(billingPeriodOf(month).id);
  }
  return periods;
};
