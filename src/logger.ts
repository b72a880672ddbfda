/**
 * The logger ocf-sync writes to: pino-shaped, so a pino instance (or `console`-like adapter) can be
 * passed directly. The library is silent unless a logger is given.
 */
export interface Logger {
  debug(fields: Record<string, unknown>, message?: string): void;
  info(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
}

const noop = (): void => {};

/** A logger that discards everything: the default. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };
