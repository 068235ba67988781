import { accept, reject, type Decider, type Decision } from "./decider.ts";
import type { Feature } from "./plan.ts";

/**
 * One ledger per account per billing period. A transformation reserves a unit before it runs,
 * then commits it (success) or releases it (failure), so failures cost nothing. A reservation
 * expires, so a process killed mid-request cannot hold a unit forever.
 * Stream: `quota-<accountId>-<period>`.
 */
export const quotaStream = (accountId: string, periodId: string): string => `quota-${accountId}-${periodId}`;
export const QUOTA_STREAM_PREFIX = "quota-";

interface Attribution {
  readonly requestId: string;
  readonly keyId: string;
  readonly operation: Feature;
}

export type QuotaEvent =
  | {
      readonly type: "QuotaReserved";
      readonly data: Attribution & { accountId: string; period: string; limit: number | null; expiresAt: string; at: string };
    }
  | {
      readonly type: "QuotaReservationRefused";
      readonly data: Attribution & { accountId: string; period: string; limit: number; used: number; at: string };
    }
  | { readonly type: "QuotaCommitted"; readonly data: { requestId: string; at: string } }
  | { readonly type: "QuotaReleased"; readonly data: { requestId: string; reason: string; at: string } };

export type QuotaCommand =
  | (Attribution & {
      readonly type: "ReserveQuota";
      readonly accountId: string;
      readonly period: string;
      /** The plan's monthly limit at the moment of the request; null = unlimited. */
      readonly limit: number | null;
      readonly expiresAt: Date;
      readonly now: Date;
    })
  | { readonly type: "CommitQuota"; readonly requestId: string; readonly now: Date }
  | { readonly type: "ReleaseQuota"; readonly requestId: string; readonly reason: string; readonly now: Date };

interface Reservation extends Attribution {
  readonly expiresAt: number;
}

export interface QuotaState {
  readonly used: number;
  readonly refused: number;
  /** The latest limit seen: what the profile reports between requests. */
  readonly limit: number | null;
  readonly reservations: ReadonlyMap<string, Reservation>;
}

const activeReservations = (state: QuotaState, now: Date, except?: string): number => {
  let count = 0;
  for (const [requestId, reservation] of state.reservations) {
    if (requestId !== except && reservation.expiresAt > now.getTime()) count++;
  }
  return count;
};

const decide = (command: QuotaCommand, state: QuotaState): Decision<QuotaEvent> => {
  const at = command.now.toISOString();
  switch (command.type) {
    case "ReserveQuota": {
      const { requestId, keyId, operation, accountId, period, limit } = command;
      if (state.reservations.has(requestId)) return accept();
      const taken = state.used + activeReservations(state, command.now);
      if (limit !== null && taken >= limit) {
        return accept({
          type: "QuotaReservationRefused",
          data: { requestId, keyId, operation, accountId, period, limit, used: state.used, at },
        });
      }
      return accept({
        type: "QuotaReserved",
        data: { requestId, keyId, operation, accountId, period, limit, expiresAt: command.expiresAt.toISOString(), at },
      });
    }
    case "CommitQuota": {
      const reservation = state.reservations.get(command.requestId);
      if (!reservation) return reject("RESERVATION_NOT_FOUND", `no open reservation ${command.requestId}`);
      // An expired reservation no longer holds its unit: it may commit only if a unit is still free.
      const expired = reservation.expiresAt <= command.now.getTime();
      if (expired && state.limit !== null && state.used + activeReservations(state, command.now, command.requestId) >= state.limit) {
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
      const { requestId, keyId, operation, expiresAt, limit } = event.data;
      const reservations = new Map(state.reservations);
      reservations.set(requestId, { requestId, keyId, operation, expiresAt: Date.parse(expiresAt) });
      return { ...state, limit, reservations };
    }
    case "QuotaReservationRefused":
      return { ...state, limit: event.data.limit, refused: state.refused + 1 };
    case "QuotaCommitted":
      return state.reservations.has(event.data.requestId)
        ? { ...state, used: state.used + 1, reservations: withoutReservation(state, event.data.requestId) }
        : state;
    case "QuotaReleased":
      return { ...state, reservations: withoutReservation(state, event.data.requestId) };
  }
};

export const quotaLedgerDecider: Decider<QuotaCommand, QuotaEvent, QuotaState> = {
  decide,
  evolve,
  initialState: () => ({ used: 0, refused: 0, limit: null, reservations: new Map() }),
};
