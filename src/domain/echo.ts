/**
 * A client's value as an error message may quote it: cut to a few dozen characters, so an
 * error body stays small whatever was sent and a megabyte-long "template" is not sent back.
 */
export const ECHO_MAX_CHARACTERS = 64;

export const echo = (value: string, max = ECHO_MAX_CHARACTERS): string =>
  value.length <= max ? value : `${value.slice(0, max)}… (${value.length - max} more characters)`;

/** Any JSON value, quoted as JSON and cut the same way. */
export const echoJson = (value: unknown, max = ECHO_MAX_CHARACTERS): string => echo(JSON.stringify(value) ?? String(value), max);
