import { Context, Logger as EffectLogger, Option, Tracer } from "effect";
import pino, { type LevelWithSilent, type Logger } from "pino";
import { maskUrlSecrets } from "../../security/url-secrets.ts";

/**
 * JSON logs. Keys never reach them: requests are logged by method, path and key id only,
 * and any Authorization header that slips into a logged object is censored.
 */
export const makeLogger = (level: LevelWithSilent, mixin?: () => object): Logger =>
  pino(
    {
      level,
      // Tracing on: the ids of the span a line is written under (see observability.ts).
      ...(mixin === undefined ? {} : { mixin }),
      base: { service: "image-transformation-api" },
      // Exact paths, no wildcards: a wildcard path makes pino walk every logged object.
      redact: { paths: ["authorization", "headers.authorization", "req.headers.authorization", "key", "err.key"], censor: "[redacted]" },
    },
    // Buffered: a synchronous write per request line cost a fifth of the CPU under load.
    // What is buffered is flushed on exit; a SIGKILL may lose the last few kilobytes of log.
    pino.destination({ dest: 1, sync: false, minLength: 4096 }),
  );

export type { Logger };

const PINO_LEVEL = { Fatal: "fatal", Error: "error", Warn: "warn", Info: "info", Debug: "debug", Trace: "trace", All: "trace", None: "silent" } as const;

/**
 * Effect's own log calls (background fibers, layers) go to the same JSON log. Their causes are
 * errors of dependencies, which may quote a connection URL: its password or token is masked.
 */
export const effectLoggerLayer = (logger: Logger) =>
  EffectLogger.layer([
    EffectLogger.make(({ message, logLevel, cause, fiber }) => {
      const level = PINO_LEVEL[logLevel];
      if (level === "silent") return;
      const parts = Array.isArray(message) ? message : [message];
      // The ids of the span the fiber runs under (a request's), taken from the fiber itself.
      const span = Option.getOrUndefined(Context.getOption(fiber.context, Tracer.ParentSpan));
      const ids = { trace_id: span?.traceId, span_id: span?.spanId };
      logger[level](
        {
          detail: parts.slice(1).map((part) => maskUrlSecrets(String(part))),
          ...(cause.reasons.length > 0 ? { cause: maskUrlSecrets(String(cause)) } : {}),
          ...ids,
        },
        maskUrlSecrets(String(parts[0])),
      );
    }),
  ]);
