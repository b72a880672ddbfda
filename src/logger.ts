/**
 * The logger ocf-sync writes to: pino-shaped, so a pino instance (or `console`-like adapter) can be
 * passed directly. The library is silent unless a logger is given.
 */
import type { Redactor } from "./redaction.js";

/**
 * Where ocf-sync's log lines go: pino-shaped (a pino instance fits), one method per level.
 *
 * @category Client
 */
export interface Logger {
  /** Detail for debugging: one line per HTTP request, per page, per retry decision. */
  debug(fields: Record<string, unknown>, message?: string): void;
  /** Progress worth keeping: a package written, a run finished. */
  info(fields: Record<string, unknown>, message?: string): void;
  /** Something the user should look at that did not stop the job: a retry, a quarantined record. */
  warn(fields: Record<string, unknown>, message?: string): void;
  /** A failure: an issuer that could not be exported. */
  error(fields: Record<string, unknown>, message?: string): void;
}

const noop = (): void => {};

/** A logger that discards everything: the default. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/**
 * `logger` with every line's message and fields redacted by `redactor` (a scope or a reason a server
 * sent may echo a credential); `logger` itself when it is the silent one.
 */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  if (logger === silentLogger) return logger;
  const level =
    (write: Logger["debug"]): Logger["debug"] =>
    (fields, message) =>
      write.call(logger, redactor.redactValue(fields), message === undefined ? undefined : redactor.redact(message));
  return { debug: level(logger.debug), info: level(logger.info), warn: level(logger.warn), error: level(logger.error) };
}
