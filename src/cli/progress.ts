/**
 * Turns library progress events into what a person or a log collector wants: a one-line progress bar
 * on a terminal, plain log lines otherwise, or JSON lines with `--log json`.
 */
import { writeLine } from "./io.js";

export type LogMode = "auto" | "plain" | "json";

export interface ProgressState {
  issuersDone: number;
  issuersTotal: number;
  records: number;
  requests: number;
}

export interface Reporter {
  /** A notable event: printed as a line (plain), a JSON object (json), or above the bar (terminal). */
  log(level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>): void;
  /** New counters for the bar; ignored outside a terminal. */
  update(state: ProgressState): void;
  /** Clears the bar. */
  done(): void;
}

export function createReporter(
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  mode: LogMode,
  now: () => number = Date.now,
): Reporter {
  const json = mode === "json";
  const bar = mode === "auto" && stream.isTTY === true;
  const started = now();
  let barShown = false;
  let last: ProgressState | undefined;
  let lastDraw = 0;

  const clearBar = (): void => {
    if (barShown) stream.write("\r\u001b[2K");
    barShown = false;
  };
  const drawBar = (): void => {
    if (!bar || last === undefined) return;
    const elapsedS = Math.max((now() - started) / 1000, 0.001);
    const { issuersDone, issuersTotal, records, requests } = last;
    const width = 24;
    const filled = issuersTotal === 0 ? width : Math.round((issuersDone / issuersTotal) * width);
    const rate = requests / elapsedS;
    const eta =
      issuersDone === 0 || issuersDone >= issuersTotal
        ? "--"
        : formatDuration(((issuersTotal - issuersDone) * (now() - started)) / issuersDone);
    const text = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${issuersDone}/${issuersTotal} issuers  ${records} records  ${rate.toFixed(1)} req/s  ETA ${eta}`;
    const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 100; // a pty may report 0
    stream.write(`\r\u001b[2K${text.slice(0, Math.max(columns - 1, 20))}`);
    barShown = true;
  };

  return {
    log(level, message, fields = {}) {
      if (json) {
        writeLine(stream, JSON.stringify({ time: new Date(now()).toISOString(), level, msg: message, ...fields }));
        return;
      }
      clearBar();
      writeLine(stream, level === "info" ? message : `${level}: ${message}`);
      drawBar();
    },
    update(state) {
      last = state;
      if (!bar) return;
      const t = now();
      if (t - lastDraw < 100 && state.issuersDone < state.issuersTotal) return;
      lastDraw = t;
      drawBar();
    },
    done() {
      clearBar();
    },
  };
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}
