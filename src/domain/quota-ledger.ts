import { accept, type Decider, type Decision, reject } from "./decider.ts";
import type { Feature } from "./plan.ts";

/**
 * One ledger per account per billing period. A transformation reserves its units before it runs
 * (one for an image, one per page for a document), then commits them (success) or releases them
 * (failure), all at once, so failures cost nothing and a document is never half charged. A
 * reservation expires, so a process killed mid-request cannot hold units forever.
 * Stream: `quota-<accountId>-<period>`.
 */
export const quotaStream = (accountId: string, periodId: string): string => `quota-${accountId}-${periodId}`;

interface Attribution {
  readonly requestId: string;
  readonly keyId: string;
  readonly operation: Feature;
}

export type QuotaEvent =
  | {
      readonly type: "QuotaReserved";
      /** `units`: the transformations reserved (a document's pages); 1 for events recorded before documents (schema version 1). */
      readonly data: Attribution & { accountId: string; period: string; units: number; limit: number | null; expiresAt: string; at: string };
    }
  | {
      readonly type: "QuotaReservationRefused";
      /**
       * `reserved`: units held by open reservations at the refusal, which with `used` explain it;
       * null for refusals recorded before it was (schema version 1). `units`: what the request asked
       * for (1 before documents, schema version 2).
       */
      readonly data: Attribution & { accountId: string; period: string; units: number; limit: number; used: number; reserved: number | null; at: string };
    }
  | { readonly type: "QuotaCommitted"; readonly data: { requestId: string; at: string } }
  | { readonly type: "QuotaReleased"; readonly data: { requestId: string; reason: string; at: string } };

export type QuotaCommand =
  | (Attribution & {
      readonly type: "ReserveQuota";
      readonly accountId: string;
      readonly period: string;
      /** Transformations to hold together, at least 1: all of them or none. */
      readonly units: number;
      /** The plan's monthly limit at the moment of the request; null = unlimited. */
      readonly limit: number | null;
      /** The key's own monthly limit (its restrictions); null = only the account's. */
      readonly keyLimit?: number | null;
      readonly expiresAt: Date;
      readonly now: Date;
    })
  | { readonly type: "CommitQuota"; readonly requestId: string; readonly now: Date }
  | { readonly type: "ReleaseQuota"; readonly requestId: string; readonly reason: string; readonly now: Date };

interface Reservation extends Attribution {
  readonly units: number;
  readonly expiresAt: number;
}

export interface QuotaState {
  readonly used: number;
  readonly refused: number;
  /** The latest limit seen: what the profile reports between requests. */
  readonly limit: number | null;
  readonly reservations: ReadonlyMap<string, Reservation>;
  /** Units committed this period per key, for keys' own monthly limits and the profile. */
  readonly usedByKey: ReadonlyMap<string, number>;
}

/** Units a key has spent this period. */
export const usedByKey = (state: QuotaState, keyId: string): number => state.usedByKey.get(keyId) ?? 0;

/** Units held by reservations that have not expired. */
const activeReservations = (state: QuotaState, now: Date, except?: string, keyId?: string): number => {
  let units = 0;
  for (const [requestId, reservation] of state.reservations) {
    if (requestId !== except && reservation.expiresAt > now.getTime() && (keyId === undefined || reservation.keyId === keyId)) units += reservation.units;
  }
  return units;
};

const decide = (command: QuotaCommand, state: QuotaState): Decision<QuotaEvent> => {
  const at = command.now.toISOString();
  switch (command.type) {
    case "ReserveQuota": {
      const { requestId, keyId, operation, accountId, period, units, limit, keyLimit } = command;
      if (!Number.isSafeInteger(units) || units < 1) return reject("INVALID_UNITS", `a reservation holds at least one unit, not ${units}`);
      if (state.reservations.has(requestId)) return accept();
      // The key's cap refuses without an event: nothing of the account's quota was asked for or held.
      if (typeof keyLimit === "number" && usedByKey(state, keyId) + activeReservations(state, command.now, undefined, keyId) + units > keyLimit) {
        return reject("KEY_QUOTA_EXCEEDED", `key ${keyId} may spend ${keyLimit} units a month`);
      }
      const reserved = activeReservations(state, command.now);
      if (limit !== null && state.used + reserved + units > limit) {
        return accept({
          type: "QuotaReservationRefused",
          data: { requestId, keyId, operation, accountId, period, units, limit, used: state.used, reserved, at },
        });
      }
      return accept({
        type: "QuotaReserved",
        data: { requestId, keyId, operation, accountId, period, units, limit, expiresAt: command.expiresAt.toISOString(), at },
      });
    }
    case "CommitQuota": {
      const reservation = state.reservations.get(command.requestId);
      if (!reservation) return reject("RESERVATION_NOT_FOUND", `no open reservation ${command.requestId}`);
      // An expired reservation no longer holds its units: it may commit only if they are all still free.
      const expired = reservation.expiresAt <= command.now.getTime();
      if (expired && state.limit !== null && state.used + activeReservations(state, command.now, command.requestId) + reservation.units > state.limit) {
        return reject("RESERVATION_EXPIRED", `reservation ${command.requestId} expired and the quota is used up`);
      }
      return accept({ type: "QuotaCommitted", data: { requestId: command.requestId, at } });
    }
    case "ReleaseQuota":
      return state.reservations.has(command.requestId)
        ? accept({ type: "QuotaReleased", data: { requestId: command.requestId, reason: command.reason, at } })
        : accept();
  }
};

const withoutReservation = (state: QuotaState, requestId: string): ReadonlyMap<string, Reservation> => {
  const reservations = new Map(state.reservations);
  reservations.delete(requestId);
  return reservations;
};

const evolve = (state: QuotaState, event: QuotaEvent): QuotaState => {
  switch (event.type) {
    case "QuotaReserved": {
      const { requestId, keyId, operation, units, expiresAt, limit } = event.data;
      const reservations = new Map(state.reservations);
      reservations.set(requestId, { requestId, keyId, operation, units, expiresAt: Date.parse(expiresAt) });
      return { ...state, limit, reservations };
    }
    case "QuotaReservationRefused":
      return { ...state, limit: event.data.limit, refused: state.refused + 1 };
    case "QuotaCommitted": {
      const reservation = state.reservations.get(event.data.requestId);
      if (reservation === undefined) return state;
      const byKey = new Map(state.usedByKey).set(reservation.keyId, usedByKey(state, reservation.keyId) + reservation.units);
      return { ...state, used: state.used + reservation.units, reservations: withoutReservation(state, event.data.requestId), usedByKey: byKey };
    }
    case "QuotaReleased":
      return { ...state, reservations: withoutReservation(state, event.data.requestId) };
  }
};

export const quotaLedgerDecider: Decider<QuotaCommand, QuotaEvent, QuotaState> = {
  decide,
  evolve,
  initialState: () => ({ used: 0, refused: 0, limit: null, reservations: new Map(), usedByKey: new Map() }),
};
