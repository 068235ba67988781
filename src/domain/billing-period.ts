/** Quota periods are calendar months in UTC, named "YYYY-MM". */
export interface BillingPeriod {
  readonly id: string;
  readonly startsAt: Date;
  readonly resetsAt: Date;
}

export const billingPeriodOf = (instant: Date): BillingPeriod => {
  const year = instant.getUTCFullYear();
  const month = instant.getUTCMonth();
  return {
    id: `${year}-${String(month + 1).padStart(2, "0")}`,
    startsAt: new Date(Date.UTC(year, month, 1)),
    resetsAt: new Date(Date.UTC(year, month + 1, 1)),
  };
};

/** Whole seconds until the period resets, at least 1 (a Retry-After value). */
export const secondsUntilReset = (period: BillingPeriod, now: Date): number => Math.max(1, Math.ceil((period.resetsAt.getTime() - now.getTime()) / 1000));
