/**
 * Turns library progress events into what a person or a log collector wants: a one-line progress bar
 * on a terminal, plain log lines otherwise, or JSON lines with `--log json`.
 *
 * Terminal conventions: no progress bar on a terminal that says it cannot redraw a line
 * (`TERM=dumb`), and no escape codes at all when `NO_COLOR` is set to anything (https://no-color.org):
 * the bar is then redrawn with a carriage return and spaces only.
 */
import { isApiError, isNetworkError } from "../client/errors.js";
import { isMappingError } from "../mapping/errors.js";
import type { OnInvalid } from "../pull/pull-issuer.js";
import { isSourceRecordError } from "../source/errors.js";
import { terminalSafe, terminalSafeJson, type FileSystemError } from "../errors.js";
import { failureCodeOf, writeLine } from "./io.js";

export type LogMode = "auto" | "plain" | "json";

export interface ProgressState {
  issuersDone: number;
  issuersTotal: number;
  records: number;
  requests: number;
  /** Pages fetched so far, of every issuer. */
  pages?: number;
  /** What is being read now, such as `issuer "7" units, page 3`: progress inside an issuer. */
  current?: string;
}

/**
 * Counts the pages and records of `page-fetched` events and names the latest page, so that the bar
 * moves inside an issuer too (a one-issuer export would otherwise show `0/1 issuers` for its whole run).
 */
export class PageTally {
  records = 0;
  pages = 0;
  current: string | undefined;

  see(event: { type: string; issuerId?: string; kind?: string; page?: number; records?: number }): void {
    if (event.type !== "page-fetched" || event.records === undefined) return;
    this.records += event.records;
    this.pages += 1;
    const what = event.kind === "restrictedStockAward" ? "awards" : "units";
    this.current = `issuer ${JSON.stringify(event.issuerId)} ${what}, page ${event.page}`;
  }

  /** The counters for `Reporter.update`. */
  state(): Pick<ProgressState, "records" | "pages" | "current"> {
    return { records: this.records, pages: this.pages, ...(this.current === undefined ? {} : { current: this.current }) };
  }
}

export interface Reporter {
  /** A notable event: printed as a line (plain), a JSON object (json), or above the bar (terminal). */
  log(level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>): void;
  /** New counters for the bar; ignored outside a terminal. */
  update(state: ProgressState): void;
  /** Clears the bar. */
  done(): void;
}

/** How the terminal behind a stream may be written to, from the stream and the environment. */
export interface TerminalAbilities {
  /** A line can be redrawn in place: a terminal, and not `TERM=dumb`. */
  redraw: boolean;
  /** ANSI escape codes are welcome: not disabled by `NO_COLOR` (any non-empty value). */
  escapes: boolean;
}

export function terminalAbilities(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): TerminalAbilities {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return { redraw: stream.isTTY === true && env.TERM !== "dumb", escapes: !noColor && env.TERM !== "dumb" };
}

export function createReporter(
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  mode: LogMode,
  options: { env: Readonly<Record<string, string | undefined>>; now?: () => number },
): Reporter {
  const now = options.now ?? Date.now;
  const terminal = terminalAbilities(stream, options.env);
  const json = mode === "json";
  const bar = mode === "auto" && terminal.redraw;
  const started = now();
  let barShown = 0; // the width of the bar on screen, 0 when none is
  let last: ProgressState | undefined;
  let lastDraw = 0;

  // Back to the start of the line, with the line emptied: by an escape code, or by spaces.
  const startOfEmptyLine = (): string => (terminal.escapes ? "\r\u001b[2K" : `\r${" ".repeat(barShown)}\r`);
  const clearBar = (): void => {
    if (barShown > 0) stream.write(startOfEmptyLine());
    barShown = 0;
  };
  const drawBar = (): void => {
    if (!bar || last === undefined) return;
    const elapsedS = Math.max((now() - started) / 1000, 0.001);
    const { issuersDone, issuersTotal, records, requests, pages, current } = last;
    const width = 24;
    const filled = issuersTotal === 0 ? width : Math.round((issuersDone / issuersTotal) * width);
    const rate = requests / elapsedS;
    // An estimate only once an issuer is done (pages carry no total); until then the bar says what it reads.
    const eta =
      issuersDone === 0 || issuersDone >= issuersTotal
        ? ""
        : `  ETA ${formatDuration(((issuersTotal - issuersDone) * (now() - started)) / issuersDone)}`;
    const read = pages === undefined ? `${records} records` : `${records} records in ${pages} page${pages === 1 ? "" : "s"}`;
    const now_ = issuersDone < issuersTotal && current !== undefined ? `  now: ${current}` : "";
    const text = terminalSafe(`[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${issuersDone}/${issuersTotal} issuers  ${read}  ${rate.toFixed(1)} req/s${eta}${now_}`);
    const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 100; // a pty may report 0
    const shown = text.slice(0, Math.max(columns - 1, 20));
    stream.write(`${startOfEmptyLine()}${shown}`);
    barShown = shown.length;
  };

  return {
    log(level, message, fields = {}) {
      if (json) {
        writeLine(stream, terminalSafeJson({ time: new Date(now()).toISOString(), level, msg: message, ...fields }));
        return;
      }
      clearBar();
      // A failure line ends with its stable code in brackets (in JSON it is the field `code`).
      const code = level === "error" && typeof fields["code"] === "string" ? ` [${fields["code"]}]` : "";
      // One line, whatever the server put in an id or a message: its control characters escaped.
      writeLine(stream, terminalSafe(level === "info" ? message : `${level}: ${message}${code}`));
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

/** The warning export and sync log for a leftover of an interrupted run they could not delete (and went on without). */
export function leftoverKeptLine(error: FileSystemError): string {
  return `${error.message}; it is left in place (no run uses it): remove it by hand`;
}

/**
 * The warnings a person should see at once rather than only in the report: a package read as of its
 * as-of date states more vested than the source (`UNVESTED_BEFORE_AS_OF` of the issuer; its message
 * names the latest as-of date the source's vesting status fits), the class ocf-sync chose for the
 * shares of units and awards that name none (`SETTLEMENT_CLASS_ASSUMED`, naming --settlement-class), the one name
 * it chose for a class id named two ways (`STOCK_CLASS_NAME_CHOSEN`), and a record listed twice in one
 * pass (`DUPLICATE_RECORD`, which `pull` logs too), and a value in which a credential was redacted
 * (`SECRET_REDACTED`). Logged as warnings by export and sync.
 */
export function logNotableWarnings(reporter: Reporter, warnings: readonly { code: string; issuerId?: string; message: string }[]): void {
  for (const w of warnings) {
    const notable = w.code === "DUPLICATE_RECORD" || (NOTABLE_WARNINGS.has(w.code) && !("record" in w && w.record !== undefined));
    if (notable) reporter.log("warn", w.message, { issuerId: w.issuerId, code: w.code });
  }
}

const NOTABLE_WARNINGS: ReadonlySet<string> = new Set(["UNVESTED_BEFORE_AS_OF", "SETTLEMENT_CLASS_ASSUMED", "STOCK_CLASS_NAME_CHOSEN", "SECRET_REDACTED"]);

/** System codes of a connection that found no server: refused, or a host name that does not resolve. */
const NO_SERVER = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN)\b/;

/**
 * What a person can do about an issuer's failure, where a short hint helps; else `undefined`.
 * `onInvalid` is the job's mode: the hint to quarantine is for an invalid record under `fail`.
 */
export function failureHint(error: unknown, onInvalid: OnInvalid): string | undefined {
  if (isNetworkError(error) && NO_SERVER.test(`${error.message} ${String((error.cause as { code?: unknown } | undefined)?.code)}`)) {
    return "check --base-url (or OCF_SYNC_BASE_URL) and that the server is running";
  }
  if (isApiError(error) && error.status === 403) return "check the token's scope and its access to this issuer";
  if (onInvalid === "fail" && (isSourceRecordError(error) || (isMappingError(error) && error.record !== undefined))) {
    return "with --on-invalid quarantine the record is set aside and listed, and the rest of the issuer goes on";
  }
  return undefined;
}

/** An issuer's failure as its log line and the `--json` documents state it. */
export interface IssuerFailure {
  /** The error's stable code. */
  code: string;
  message: string;
  /** What a person can do about it, where a short hint helps (see `failureHint`). */
  hint?: string;
}

/** An issuer's failure: its code, its message and, where one helps, a hint. */
export function issuerFailureOf(error: unknown, onInvalid: OnInvalid): IssuerFailure {
  const hint = failureHint(error, onInvalid);
  return { code: failureCodeOf(error), message: error instanceof Error ? error.message : String(error), ...(hint === undefined ? {} : { hint }) };
}

/**
 * Logs that an issuer failed (`what`: "failed", "was stopped", …): the error's message, a hint where
 * one helps, and its code, which a text line ends with in brackets.
 */
export function logIssuerFailure(reporter: Reporter, issuerId: string, error: unknown, options: { onInvalid: OnInvalid; what?: string }): void {
  const { code, message, hint } = issuerFailureOf(error, options.onInvalid);
  reporter.log("error", `issuer ${JSON.stringify(issuerId)} ${options.what ?? "failed"}: ${message}${hint === undefined ? "" : `; ${hint}`}`, { issuerId, code });
}
