/**
 * Durations as people write them for keys (`30d`, `24h`, `4s`), and expiries given either as such a
 * duration from now or as an ISO-8601 time.
 */
const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d{1,9})([smhdw])$/;

/** Milliseconds, or undefined for anything but a positive whole number and one unit (s, m, h, d, w). */
export const parseDuration = (text: string): number | undefined => {
  const match = DURATION.exec(text.trim());
  if (match === null) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  return ms > 0 ? ms : undefined;
};

// A date, optionally a time and zone: what Date.parse reads the same on every engine.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** The instant `text` names: a duration from `now`, or an ISO-8601 time; undefined when it is neither. */
export const parseExpiry = (text: string, now: Date): Date | undefined => {
  const duration = parseDuration(text);
  if (duration !== undefined) return new Date(now.getTime() + duration);
  if (!ISO_TIME.test(text.trim())) return undefined;
  const time = Date.parse(text.trim());
  return Number.isNaN(time) ? undefined : new Date(time);
};
