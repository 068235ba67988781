import type { QuotaEvent } from "./quota-ledger.ts";

/**
 * Usage from a quota ledger's events, computed the way an auditor would by hand: every reservation
 * names its request, key and operation; a commit or a release names only its request, so it is
 * attributed to the reservation still open for that request (and, as in the ledger, counts nothing
 * when there is none). Reserved, committed and released count units (a document reserves one per
 * page); refused counts the refused requests.
 */
export interface Attribution {
  readonly requestId: string;
  readonly keyId: string;
  readonly operation: string;
  readonly period: string;
  /** The units the request reserved or asked for. */
  readonly units: number;
}

export interface UsageCounts {
  readonly reserved: number;
  readonly committed: number;
  readonly released: number;
  readonly refused: number;
}

export interface UsageLine extends UsageCounts {
  readonly period: string;
  readonly operation: string;
  readonly keyId: string;
}

export interface UsageReplay {
  /** One line per period, operation and key that saw any movement, sorted by those three. */
  readonly lines: ReadonlyArray<UsageLine>;
  /** For each event given, the request it concerns (undefined: a commit or release with no open reservation). */
  readonly attributions: ReadonlyArray<Attribution | undefined>;
  /** Reservations neither committed nor released yet. */
  readonly open: number;
}

export const ZERO_USAGE: UsageCounts = { reserved: 0, committed: 0, released: 0, refused: 0 };

/** What one event adds to a usage field: its units, except a refusal, which is one refused request. */
export const usageIncrement = (field: keyof UsageCounts, units: number): number => (field === "refused" ? 1 : units);

export const usageLineKey = (line: Pick<UsageLine, "period" | "operation" | "keyId">): string => `${line.period} ${line.operation} ${line.keyId}`;

export const replayUsage = (events: ReadonlyArray<QuotaEvent>): UsageReplay => {
  const open = new Map<string, Attribution>();
  const lines = new Map<string, UsageLine>();
  const count = (attribution: Attribution, field: keyof UsageCounts) => {
    const key = usageLineKey(attribution);
    const line = lines.get(key) ?? { period: attribution.period, operation: attribution.operation, keyId: attribution.keyId, ...ZERO_USAGE };
    lines.set(key, { ...line, [field]: line[field] + usageIncrement(field, attribution.units) });
  };
  const attributions = events.map((event): Attribution | undefined => {
    switch (event.type) {
      case "QuotaReserved": {
        const { requestId, keyId, operation, period, units } = event.data;
        const attribution = { requestId, keyId, operation, period, units };
        open.set(requestId, attribution);
        count(attribution, "reserved");
        return attribution;
      }
      case "QuotaReservationRefused": {
        const { requestId, keyId, operation, period, units } = event.data;
        const attribution = { requestId, keyId, operation, period, units };
        count(attribution, "refused");
        return attribution;
      }
      case "QuotaCommitted":
      case "QuotaReleased": {
        const attribution = open.get(event.data.requestId);
        if (attribution === undefined) return undefined;
        open.delete(event.data.requestId);
        count(attribution, event.type === "QuotaCommitted" ? "committed" : "released");
        return attribution;
      }
    }
  });
  return {
    lines: [...lines.values()].sort((a, b) => usageLineKey(a).localeCompare(usageLineKey(b))),
    attributions,
    open: open.size,
  };
};
