import { describe, expect, it } from "vitest";
import { billingPeriodOf, secondsUntilReset } from "../../src/domain/billing-period.ts";

describe("billing period", () => {
  it("is the calendar month in UTC, whatever the local zone", () => {
    expect(billingPeriodOf(new Date("2026-12-31T23:59:59.999Z")).id).toBe("2026-12");
    const january = billingPeriodOf(new Date("2027-01-01T00:00:00.000Z"));
    expect(january.id).toBe("2027-01");
    expect(january.resetsAt.toISOString()).toBe("2027-02-01T00:00:00.000Z");
  });

  it("gives Retry-After as whole seconds until the reset, at least 1", () => {
    const period = billingPeriodOf(new Date("2026-11-30T23:59:00.000Z"));
    expect(secondsUntilReset(period, new Date("2026-11-30T23:59:00.000Z"))).toBe(60);
    expect(secondsUntilReset(period, new Date("2026-11-30T23:59:59.999Z"))).toBe(1);
  });
});
