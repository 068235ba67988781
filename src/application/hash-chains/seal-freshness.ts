/**
 * Whether a seal is missing. Deleting a stream's tail together with the seals that cover it leaves
 * nothing in the chains; what shows is time: seals are made every interval whether or not anything
 * changed, so a newest seal older than its interval plus this grace means a newer one is gone, and
 * a store that has held events for longer than that without any seal lost all of them. The
 * interval is the one the newest seal recorded (under its signature), so the auditor's own
 * settings do not matter; the auditor's LEDGER_SEAL_INTERVAL_SECONDS counts only for seals
 * written before the interval was recorded, and for a store with no seal. 0 means manual seals:
 * no schedule to hold them to.
 */
export const SEAL_GRACE_SECONDS = 600;

export interface SealFreshnessInput {
  readonly now: Date;
  /** The newest seal in the store. */
  readonly newest: { readonly revision: number; readonly sealedAt: string; readonly intervalSeconds: number | null } | undefined;
  /** The revision the next seal event would take. */
  readonly nextRevision: number;
  /** LEDGER_SEAL_INTERVAL_SECONDS where the audit runs. */
  readonly configuredIntervalSeconds: number;
  /** The earliest time any event (outside the seal stream) claims; undefined for an empty store. */
  readonly oldestEventAt: Date | undefined;
}

const duration = (ms: number) => {
  const seconds = Math.floor(ms / 1000);
  return seconds < 3600 ? `${seconds} s` : `${(seconds / 3600).toFixed(1)} h`;
};

/** Where and why a seal is missing, or undefined when the seals are as fresh as their schedule promises. */
export const missingSeal = (input: SealFreshnessInput): { readonly revision: number; readonly detail: string } | undefined => {
  const interval = input.newest?.intervalSeconds ?? input.configuredIntervalSeconds;
  if (interval === 0) return undefined;
  const allowed = (interval + SEAL_GRACE_SECONDS) * 1000;
  const rule = `seals are due every ${interval} s, ${SEAL_GRACE_SECONDS} s of grace`;
  if (input.newest !== undefined) {
    const age = input.now.getTime() - Date.parse(input.newest.sealedAt);
    if (age <= allowed) return undefined;
    return {
      revision: input.nextRevision,
      detail: `the newest seal (revision ${input.newest.revision}, ${input.newest.sealedAt}) is ${duration(age)} old and ${rule}: newer seals are missing`,
    };
  }
  if (input.oldestEventAt === undefined) return undefined;
  const span = input.now.getTime() - input.oldestEventAt.getTime();
  if (span <= allowed) return undefined;
  return {
    revision: input.nextRevision,
    detail: `the store holds events since ${input.oldestEventAt.toISOString()} (${duration(span)}) and no seal, and ${rule}: every seal is missing`,
  };
};
