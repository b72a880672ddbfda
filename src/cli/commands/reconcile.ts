import { resolve } from "node:path";
import { createApiClient } from "../../client/create-client.js";
import { isApiError, isAuthError, isInvalidJsonError, isNetworkError, isResponseTooLargeError } from "../../client/errors.js";
import { isCalendarDate } from "../../dates.js";
import { isDeadlineExceededError, isInterruptedError, isOcfSyncError, terminalSafe } from "../../errors.js";
import { openAtomicWriteStream, type AtomicWriteStream } from "../../io/atomic-file.js";
import { checkStreamInput } from "../../io/input-file.js";
import { renderReconciliationHtml } from "../../reconcile/html.js";
import { documentStamp } from "../../document-stamp.js";
import { loadPackageObjects, reconcileApiWithOcf, reconcileNdjsonWithOcf } from "../../reconcile/load.js";
import { reconcileOcfWithOcf } from "../../reconcile/ocf-vs-ocf.js";
import { reconciliationCsv, renderReconciliationText, reportAgrees } from "../../reconcile/render.js";
import type { ReconcileOptions, ReconciliationReport } from "../../reconcile/types.js";
import { parseCommandArgs, parseDuration } from "../args.js";
import { CLIENT_FLAGS_HELP, clientOptionsFromFlags } from "../client-flags.js";
import { CLIENT_FLAGS, COMMAND_OPTIONS } from "../command-options.js";
import { UsageError, asArgumentError, writeLine, type CliIo } from "../io.js";
import { withJsonDocument } from "../json-output.js";

export const RECONCILE_HELP = `Usage: ocf-sync reconcile --source FILE PACKAGE [options]
       ocf-sync reconcile --base-url URL --issuer ID PACKAGE [options]
       ocf-sync reconcile PACKAGE --against OTHER_PACKAGE [options]

Proves that the numbers match. PACKAGE is an OCF package folder or .ocf.zip.

The package is read the way an OCF reader does, never through ocf-sync's comments or naming:
  documents      (OCF's TraversingTransactions) a cancellation ends its security and what remains
                 lives on the issuance its balance_security_id names; a release takes units off its
                 security (OCF 1.2.0 gives it no balance)
  same-security  (OCF #531) outstanding = issued - released - cancelled on one security, until a
                 transaction names a balance security, which then holds what is left
The reading is the one the package declares in its manifest comments ("Lineage: ..."), else
documents (against another package: each package the one it declares); --reader picks one for
all. Transactions the reading cannot accept (an act on an ended security, a remainder left on no
security, a balance that does not add up) are differences (OCF_LINEAGE). A grant's payouts above
target (<security>-payout-<event key>, issued to its holder: OCF has no field to link them) are
part of the grant: its issued, vested, released and outstanding figures include them.

Source against OCF (--source FILE, the NDJSON of 'ocf-sync pull', or the API with --base-url and
--issuer): every award and unit is matched with its grant (the chain of securities from rsa-<id> or
rsu-<id>, else from the issuance whose custom_id is its securityLabel) and its counters (quantity,
vested, released, net settled, sold to cover, canceled, returned to pool and to treasury,
outstanding) are compared with the figures the package's transactions give, and its vesting dates
with the package's. Securities on one side only are reported, and every holder's shares and units
are set side by side. Then the source's own consistency is checked record by record (vested events vs
vestedQuantity, settlements vs released, canceled vs forfeited + expired and vs returned to pool +
treasury, dates in order), and no settlement may release more by its date than had vested by then
(RELEASED_BEFORE_VESTED; its vesting events marked vested, or all on the issue date without events).

OCF against OCF (--against OTHER_PACKAGE): grants are matched by security_id, then custom_id, then
stakeholder, date and quantity; missing, extra and different ones are reported field by field, and
totals per stock class, stock plan and stakeholder are compared.

Every comparison is exact, with decimals.

Options:
  --source FILE        the NDJSON written by 'ocf-sync pull': a file or a pipe (<(ocf-sync pull ...)),
                       read as a stream; a folder or device is a usage error
  --issuer ID          with --base-url: the issuer to pull; with --source: the issuer of the file
                       (default: the package's issuer, else the file's only issuer)
  --against PACKAGE    compare PACKAGE with this other package instead of with a source
  --as-of DATE         vested figures as of DATE (YYYY-MM-DD), replaying both sides' vesting events;
                       default: the package's as_of, compared with the source's vestedQuantity
  --tolerance N        differences up to N (a decimal, e.g. 0.0001) count as agreement (default 0)
  --reader READING     documents or same-security (default: what the package declares, else
                       documents)
  --json               print the reports as one JSON document: { "agree", "reports" }; unusable
                       input: { "agree": false, "unusable": { "code", "message" } }; a usage error
                       or another failure (the API's too): { "agree": false, "error": { "code", "message" } };
                       each opens with "ocfSyncVersion" and "generatedAt" (schemas/reconcile.schema.json)
  --csv                print every difference as CSV (issuer_id, section, code, kind, record_id,
                       security_id, field, expected, actual, message), a row per holder figure that
                       differs (section holders) and per note (section note, in message); a cell that
                       a spreadsheet would run as a formula (=, +, -, @ first, not a number) starts with '
  --html FILE          also write a self-contained HTML report (the reading used, totals, every
                       holder's shares and units, every difference, and a chart of vested shares over
                       time on both sides with their difference, and the version and time that
                       wrote it), atomically; its path is then printed on standard error
  --deadline DURATION  with --base-url: stop pulling after this long (e.g. 90s, 15m); exit status 1

OCF_SYNC_BASE_URL set in the environment counts as --base-url when neither --source nor --against is
given (--issuer is then required); with --source or --against it is not used.

${CLIENT_FLAGS_HELP}

Every package read is first checked against its manifest (each listed file present, of its list's
file type, with the manifest's MD5, and no unlisted OCF file): one that does not match is refused.
The objects themselves are not checked against the schemas there: what is wrong in them shows as
differences; 'ocf-sync validate' reports a package's own problems.

Exit status: 0 everything agrees, 1 differences found, the API failed (unreachable, refused, an
error status) or the --deadline passed, 2 unusable input (no package, a package that does not match
its manifest, malformed NDJSON, an issuer the file lacks), a usage error or an --html that cannot be
written, 130 or 143 when stopped by a signal.

Examples:
  ocf-sync serve-samples --port 4010 &   # the sample API the examples below use
  ocf-sync pull --base-url http://127.0.0.1:4010 --issuer acme-robotics --out acme.ndjson
  ocf-sync export --base-url http://127.0.0.1:4010 --issuer acme-robotics --out out --zip --as-of 2025-06-30   # the samples' date
  ocf-sync reconcile --source acme.ndjson out/acme-robotics
  ocf-sync reconcile --base-url http://127.0.0.1:4010 --issuer acme-robotics out/acme-robotics --html acme.html
  ocf-sync reconcile --source acme.ndjson out/acme-robotics --as-of 2024-12-31 --csv > differences.csv
  ocf-sync reconcile out/acme-robotics --against out/acme-robotics.ocf.zip --json   # or another system's package
  ocf-sync reconcile --source acme.ndjson out/acme-robotics --reader same-security`;

/** `ocf-sync reconcile`: exit 0 everything agrees, 1 differences or the API failed, 2 unusable input or usage error. */
export async function reconcileCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return withJsonDocument(io, "reconcile", argv, (printJson) => reconcileJob(argv, io, printJson), (error) => ({ agree: false, error }));
}

async function reconcileJob(argv: readonly string[], io: CliIo, printJson: (document: object) => void): Promise<number> {
  const { values, positionals } = parseCommandArgs("reconcile", {
    args: [...argv],
    options: COMMAND_OPTIONS.reconcile,
    allowPositionals: true,
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, RECONCILE_HELP);
    return 0;
  }
  const [target, ...extra] = positionals;
  if (target === undefined || extra.length > 0) throw new UsageError(`takes exactly one PACKAGE (a folder or .ocf.zip), got ${positionals.length}`);
  // OCF_SYNC_BASE_URL counts as --base-url, as for export, pull and sync, unless --source or --against
  // names another side: a variable set for those commands must not turn a file's reconcile into the API's.
  const envBaseUrl = io.env.OCF_SYNC_BASE_URL !== undefined && io.env.OCF_SYNC_BASE_URL !== "" && values.source === undefined && values.against === undefined;
  const apiSource = values["base-url"] !== undefined || envBaseUrl;
  const modes = [values.source !== undefined, apiSource, values.against !== undefined].filter(Boolean).length;
  if (modes !== 1) throw new UsageError("give exactly one of --source FILE, --base-url URL (or OCF_SYNC_BASE_URL, with --issuer) and --against PACKAGE");
  if (apiSource && values.issuer === undefined) {
    throw new UsageError(`${values["base-url"] !== undefined ? "--base-url" : "OCF_SYNC_BASE_URL (from the environment)"} needs --issuer ID`);
  }
  // Options the chosen mode does not use are refused, not ignored: the user meant something by them.
  const connection = Object.keys(CLIENT_FLAGS).filter((flag) => values[flag as keyof typeof CLIENT_FLAGS] !== undefined);
  if (!apiSource && connection.length > 0) throw new UsageError(`${connection.map((flag) => `--${flag}`).join(", ")}: only with --base-url (or OCF_SYNC_BASE_URL)`);
  if (values.against !== undefined && values.issuer !== undefined) {
    throw new UsageError(`--issuer goes with --source or --base-url; with --against, each package names its issuer`);
  }
  const deadlineMs = parseDuration("deadline", values.deadline);
  if (deadlineMs !== undefined && !apiSource) throw new UsageError(`--deadline bounds the pull from the API: it goes with --base-url (or OCF_SYNC_BASE_URL)`);
  if (values.json === true && values.csv === true) throw new UsageError(`give --json or --csv, not both`);
  const asOf = values["as-of"];
  if (asOf !== undefined && !isCalendarDate(asOf)) throw new UsageError(`--as-of must be a real date YYYY-MM-DD, got ${JSON.stringify(asOf)}`);
  const tolerance = values.tolerance;
  if (tolerance !== undefined && !/^[0-9]+(\.[0-9]+)?$/.test(tolerance)) {
    throw new UsageError(`--tolerance must be a non-negative decimal such as 0 or 0.0001, got ${JSON.stringify(tolerance)}`);
  }
  const reader = values.reader;
  if (reader !== undefined && reader !== "documents" && reader !== "same-security") {
    throw new UsageError(`--reader takes documents or same-security, got ${JSON.stringify(reader)}`);
  }
  const options: ReconcileOptions = {
    ...(asOf === undefined ? {} : { asOf }),
    ...(tolerance === undefined ? {} : { tolerance }),
    ...(reader === undefined ? {} : { reader }),
  };
  const clientOptions = apiSource ? clientOptionsFromFlags(values, io.env, { redactor: io.redactor }) : undefined;
  const signal = io.signal === undefined ? {} : { signal: io.signal };

  const sourcePath = values.source === undefined ? undefined : resolve(io.cwd, values.source);
  // A file that cannot be streamed (a folder, /dev/zero) is refused before the package is read.
  if (sourcePath !== undefined) await checkStreamInput(sourcePath).catch((error: unknown) => Promise.reject(asArgumentError("source", error)));
  const htmlPath = values.html === undefined ? undefined : resolve(io.cwd, values.html);
  // Opened before any reading: an --html that cannot be written is a usage error, found at once.
  let html: AtomicWriteStream | undefined;
  try {
    html = htmlPath === undefined ? undefined : await openAtomicWriteStream(htmlPath, signal);
  } catch (error) {
    throw asArgumentError("html", error);
  }
  try {
    let report: ReconciliationReport;
    try {
      // The report names each side by its path as resolved, as every path the command line prints is.
      const packagePath = resolve(io.cwd, target);
      const pkg = await loadPackageObjects(packagePath, signal);
      if (values.against !== undefined) {
        const otherPath = resolve(io.cwd, values.against);
        const other = await loadPackageObjects(otherPath, signal);
        report = reconcileOcfWithOcf(pkg, other, { ...options, labels: { expected: packagePath, actual: otherPath } });
      } else {
        // Each record is reconciled as it is read, and only what the report needs of it is kept.
        if (clientOptions !== undefined && values.issuer !== undefined) {
          const labels = { expected: `source (API ${clientOptions.baseUrl})`, actual: `OCF (${packagePath})` };
          const client = createApiClient(clientOptions);
          try {
            report = await reconcileApiWithOcf(client, values.issuer, pkg, { ...options, labels, ...signal, ...(deadlineMs === undefined ? {} : { deadlineMs }) });
          } finally {
            await client.close();
          }
        } else {
          const file = sourcePath ?? "";
          const labels = { expected: `source (${file})`, actual: `OCF (${packagePath})` };
          report = await reconcileNdjsonWithOcf(file, pkg, { ...options, labels, ...signal, ...(values.issuer === undefined ? {} : { issuerId: values.issuer }) });
        }
      }
    } catch (error) {
      if (!isUnusableInput(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const code = isOcfSyncError(error) ? error.code : ((error as { code?: unknown }).code ?? "UNUSABLE_INPUT");
      if (values.json === true) printJson({ agree: false, unusable: { code, message } });
      else writeLine(io.stderr, `ocf-sync reconcile: ${terminalSafe(message)} [${String(code)}]`);
      return 2;
    }

    if (html !== undefined) {
      await html.write(renderReconciliationHtml([report], { stamp: documentStamp((io.now ?? Date.now)()) }));
      await html.commit();
      // On standard error: standard output is the report itself (text, --json or --csv).
      writeLine(io.stderr, `HTML report written to ${terminalSafe(htmlPath ?? "")}`);
    }
    if (values.json === true) printJson({ agree: reportAgrees(report), reports: [report] });
    else if (values.csv === true) io.stdout.write(reconciliationCsv([report]));
    else writeLine(io.stdout, renderReconciliationText(report));
    return reportAgrees(report) ? 0 : 1;
  } finally {
    await html?.abort(); // after a commit, nothing to do
  }
}

/**
 * Errors that mean the input cannot be reconciled at all (exit 2): every ocf-sync error (no package,
 * malformed NDJSON, unknown issuer in the file) and a file that cannot be opened. A failure of the
 * API (transport, auth, HTTP status, envelope) is not: the job failed, exit 1, as for export and pull
 * (an outage is not a wrong invocation). Anything else is a bug and is thrown.
 */
function isUnusableInput(error: unknown): boolean {
  // Stopped by a signal or the deadline: not a verdict on the input.
  if (isInterruptedError(error) || isDeadlineExceededError(error)) return false;
  if (isApiFailure(error)) return false;
  if (isOcfSyncError(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "EISDIR" || code === "EACCES" || code === "ENOTDIR";
}

/** A failure of a call to the API: no answer, an error status, a body that is no envelope, auth refused. */
function isApiFailure(error: unknown): boolean {
  return isApiError(error) || isNetworkError(error) || isInvalidJsonError(error) || isResponseTooLargeError(error) || isAuthError(error);
}
