import pino, { type Logger } from "pino";
import type { LogLevel } from "../../config.ts";

/**
 * JSON logs. Keys never reach them: requests are logged by method, path and key id only,
 * and any Authorization header that slips into a logged object is censored.
 */
export const makeLogger = (level: LogLevel): Logger =>
  pino({
    level,
    base: { service: "image-transformation-api" },
    redact: { paths: ["authorization", "*.authorization", "*.headers.authorization", "key", "*.key"], censor: "[redacted]" },
  });

export type { Logger };
