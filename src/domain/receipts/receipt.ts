import type { Feature } from "../plan.ts";
import type { QuotaEvent } from "../quota-ledger.ts";

/**
 * What the receipts log records of the quota ledgers: one leaf per movement, in the store's order.
 * A `charge` is units committed by a successful request (what the profile's `used` counts); a
 * `release` is a reservation given back uncharged by a failed one, logged so a customer sees that
 * every request they were told of ended; a `refund` gives charged units back (none is issued
 * yet: the kind is reserved so that receipts never need a new version for it). A bill's total is
 * charges minus refunds; a release was never charged, so it takes nothing off.
 */
export const RECEIPT_KINDS = ["charge", "release", "refund"] as const;
export type ReceiptKind = (typeof RECEIPT_KINDS)[number];

export interface ReceiptBody {
  readonly v: 1;
  /** The log's origin line: the receipt belongs to that log and no other. */
  readonly logOrigin: string;
  readonly kind: ReceiptKind;
  readonly account: string;
  readonly requestId: string;
  readonly operation: Feature;
  readonly units: number;
  /** The billing period, YYYY-MM. */
  readonly period: string;
  /** When the ledger recorded the movement (ISO 8601, UTC). */
  readonly at: string;
  /** The leaf's index in the log: receipts are numbered in the store's order from 0. */
  readonly leafIndex: number;
}

/** A reservation as the log must remember it until its request ends. */
export interface OpenReservation {
  readonly account: string;
  readonly requestId: string;
  readonly operation: Feature;
  readonly units: number;
  readonly period: string;
}

/** What one quota event means to the log: remember a reservation, forget one, or a movement. */
export type LogStep =
  | { readonly _tag: "Open"; readonly reservation: OpenReservation }
  | { readonly _tag: "Movement"; readonly body: Omit<ReceiptBody, "leafIndex" | "logOrigin"> }
  | { readonly _tag: "Nothing" };

/**
 * The log's reading of one quota event, given the reservation its request opened (if still open).
 * A commit or release with no open reservation moves nothing, as in the ledger itself.
 */
export const logStepOf = (event: QuotaEvent, open: OpenReservation | undefined): LogStep => {
  switch (event.type) {
    case "QuotaReserved": {
      const { accountId, requestId, operation, units, period } = event.data;
      return { _tag: "Open", reservation: { account: accountId, requestId, operation, units, period } };
    }
    case "QuotaReservationRefused":
      return { _tag: "Nothing" };
    case "QuotaCommitted":
    case "QuotaReleased": {
      if (open === undefined) return { _tag: "Nothing" };
      const kind: ReceiptKind = event.type === "QuotaCommitted" ? "charge" : "release";
      return { _tag: "Movement", body: { v: 1, kind, ...open, at: event.data.at } };
    }
  }
};

/** A bill's totals: units charged net of refunds, and how many movements of each kind. */
export interface BillTotals {
  readonly units: number;
  readonly charges: number;
  readonly releases: number;
  readonly refunds: number;
}

export const billTotals = (bodies: Iterable<Pick<ReceiptBody, "kind" | "units">>): BillTotals => {
  let units = 0;
  const counts = { charge: 0, release: 0, refund: 0 };
  for (const { kind, units: moved } of bodies) {
    counts[kind] += 1;
    if (kind === "charge") units += moved;
    if (kind === "refund") units -= moved;
  }
  return { units, charges: counts.charge, releases: counts.release, refunds: counts.refund };
};
