import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { OcfSyncError, terminalSafe } from "../../errors.js";
import { COMPLETE_MARKER, downloadPackage } from "../../export/s3-package.js";
import { isS3Url } from "../../io/s3.js";
import { PackageUnusableError } from "../../ocf/package-reader.js";
import { LINEAGE_READINGS, type Lineage } from "../../ocf/security-ledger.js";
import { validatePackageAt, type PackageProblem, type PackageValidationReport } from "../../ocf/validate-package.js";
import { parseCommandArgs } from "../args.js";
import { COMMAND_OPTIONS } from "../command-options.js";
import { UsageError, writeLine, type CliIo } from "../io.js";
import { withJsonDocument } from "../json-output.js";
import { renderTable } from "../table.js";
import { s3TargetOf } from "../s3-location.js";

export const VALIDATE_HELP = `Usage: ocf-sync validate PATH [--json] [--reader documents|same-security]

Checks an OCF 1.2.0 package: a folder holding Manifest.ocf.json, or a flat .ocf.zip (every file at
the zip root). Reports every problem, not only the first, each with its file, object id and JSON
path, and every warning (data that is odd but valid OCF: the package stays valid) the same way:

  - every file and object against ocf-sync's OCF 1.2.0 schemas (the manifest too), and each file's
    file_type against the manifest list it is in; a transaction of an OCF 1.2.0 kind ocf-sync has no
    schema for (an exercise, a split, a warrant's, ...) is counted, its fields not checked;
  - the manifest's file list: each file is there and its MD5 matches; no *.ocf.json file is unlisted;
  - references resolve (stakeholder, stock class, stock plan, vesting terms, vesting condition, the
    security of every transaction, resulting and balance securities); ids are unique;
  - the lineage of every security, its transactions taken by date, then kind (issuance, acceptance,
    vesting start, vesting event, release, cancellation, return to pool), whatever the file order:
    nothing dated before its issuance (a vesting start may be); vestings adding up to at most the
    quantity; no more released, cancelled or returned to the pool than there is; and
      documents (OCF TraversingTransactions, the default): a cancellation, repurchase, transfer,
        retraction (…) ends its security; what it leaves outstanding must be a new issuance named by
        balance_security_id, of exactly that quantity; after it, only a return to pool may act on
        the security. A release does not end it (OCF 1.2.0 gives it no balance security).
      same-security (OCF #531): partial cancellations stay on the security; it ends when nothing is
        outstanding, at a retraction, or when a balance security is named.
    A package declares its reading with a Manifest comments line "Lineage: documents" or
    "Lineage: same-security"; the report says which reading it used.
  - the order within a day: OCF 1.2.0 orders transactions by date only, and readers order a day
    differently (file order, OCF-Tools by type), so nothing may act on a security that another
    transaction of the same day ends (documents: a cancellation, ...; same-security: a retraction or
    a move to a balance security), a return to pool excepted (SAME_DAY_ORDER);
  - releases before vesting, a warning (RELEASED_BEFORE_VESTED): what is released of an equity
    compensation security by a date is more than its vestings list has vested by then, as when the
    source settled units before they vested (a security vesting by VestingTerms is not checked
    here, one with neither is fully vested).

Files are read object by object, so a package of any size is checked with the same memory.

PATH s3://BUCKET/PREFIX/NAME checks package NAME that 'export --out s3://BUCKET/PREFIX' committed:
only when its marker NAME/.ocf-sync-complete.json is there and every object it lists still has the
ETag it lists (else S3_PACKAGE_INCOMPLETE, exit 1), downloaded to a temporary folder (needs the
optional package @aws-sdk/client-s3; credentials and endpoint as for export: docs/cli.md).

Options:
  --reader R  check the lineage by reading R (documents or same-security) whatever the package
              declares
  --json      print the report as one JSON document on standard output:
              { "path", "valid", "counts", "lineage": { "reading", "from" },
                "problems": [{ "code", "file", "itemId", "jsonPath", "message" }],
                "warnings": [ the same ] }, where "itemId" (the object's id) is left out of a
                problem that concerns no one object (of a warning too); "valid" is true when
                "problems" is empty, whatever "warnings" holds;
              unusable input: { "path", "valid": false, "unusable": { "code", "message" } };
              a usage error or other failure: { "path", "valid": false, "error": { "code", "message" } };
              each opens with "ocfSyncVersion" and "generatedAt" (schemas/validate.schema.json)

Exit status: 0 valid (warnings or none), 1 problems found, 2 unusable input (not a folder or zip,
unreadable zip, no manifest, manifest not JSON) or a usage error, 130 or 143 when stopped by SIGINT
or SIGTERM.

Examples:
  ocf-sync export --base-url http://127.0.0.1:4010 --issuer 7 --issuer acme-robotics --out out --zip --as-of 2025-06-30   # from the sample API
  ocf-sync validate out/7                # a package folder
  ocf-sync validate out/7.ocf.zip        # and its zip
  ocf-sync validate out/7.ocf.zip --reader same-security   # read as OCF #531 (for a package from elsewhere)
  ocf-sync validate out/acme-robotics --json | jq '.problems[] | select(.code == "OVER_CONSUMED")'`;

/** `ocf-sync validate PATH [--json] [--reader R]`: exit 0 valid, 1 problems found, 2 unusable input or usage error. */
export async function validateCommand(argv: readonly string[], io: CliIo): Promise<number> {
  // The package's path once known: what a --json document of a usage error or other failure names.
  const named: { path?: string } = {};
  return withJsonDocument(
    io,
    "validate",
    argv,
    (printJson) => validateJob(argv, io, named, printJson),
    (error) => ({ path: named.path ?? null, valid: false, error }),
  );
}

async function validateJob(argv: readonly string[], io: CliIo, named: { path?: string }, printJson: (document: object) => void): Promise<number> {
  const { values, positionals } = parseCommandArgs("validate", {
    args: [...argv],
    options: COMMAND_OPTIONS.validate,
    allowPositionals: true,
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, VALIDATE_HELP);
    return 0;
  }
  const [target, ...extra] = positionals;
  if (target === undefined || extra.length > 0) {
    throw new UsageError(`takes exactly one PATH (a package folder or .ocf.zip), got ${positionals.length}`);
  }
  // Named before any other check: a usage error's --json document names the package too.
  const path = isS3Url(target) ? target : resolve(io.cwd, target);
  named.path = path;
  const reader = values.reader;
  if (reader !== undefined && !(LINEAGE_READINGS as readonly string[]).includes(reader)) {
    throw new UsageError(`--reader must be ${LINEAGE_READINGS.join(" or ")}, got ${JSON.stringify(reader)}`);
  }
  if (isS3Url(target)) {
    const downloaded = await downloadedForValidation(target, io);
    try {
      return await validateAt(downloaded.folder, target, reader, values.json === true, io, printJson);
    } finally {
      await downloaded.dispose();
    }
  }
  return validateAt(path, path, reader, values.json === true, io, printJson);
}

/**
 * `s3://BUCKET/PREFIX/NAME`: the complete package NAME (its marker there, every object it lists with
 * the ETag it lists) downloaded into a temporary folder; `S3_PACKAGE_INCOMPLETE` when it is not.
 */
async function downloadedForValidation(url: string, io: CliIo): Promise<{ folder: string; dispose(): Promise<void> }> {
  const trimmed = url.replace(/\/+$/, "");
  const cut = trimmed.lastIndexOf("/");
  const name = trimmed.slice(cut + 1);
  if (cut < "s3://".length || name === "") throw new UsageError(`PATH s3://BUCKET/PREFIX/NAME names a package, got ${JSON.stringify(url)}`);
  const target = await s3TargetOf("PATH", trimmed.slice(0, cut), io);
  const dir = await mkdtemp(join(tmpdir(), "ocf-sync-s3-"));
  const dispose = async (): Promise<void> => {
    target.client.destroy();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const marker = await downloadPackage(target, name, dir, io.signal === undefined ? {} : { signal: io.signal });
    if (marker === undefined) {
      throw new OcfSyncError("S3_PACKAGE_INCOMPLETE", `${url} is not a complete package: no ${COMPLETE_MARKER} there, or its objects no longer have the ETags it lists (an upload cut short, or under way)`);
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return { folder: join(dir, name), dispose };
}

async function validateAt(path: string, shown: string, reader: string | undefined, json: boolean, io: CliIo, printJson: (document: object) => void): Promise<number> {
  let report: PackageValidationReport;
  try {
    report = await validatePackageAt(path, {
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      ...(reader === undefined ? {} : { reader: reader as Lineage }),
    });
  } catch (error) {
    if (!(error instanceof PackageUnusableError)) throw error;
    if (json) {
      printJson({ path: shown, valid: false, unusable: { code: error.code, message: error.message } });
    } else {
      writeLine(io.stderr, `ocf-sync validate: ${terminalSafe(error.message)} [${error.code}]`);
    }
    return 2;
  }
  if (json) {
    printJson({ path: shown, ...report });
  } else {
    writeLine(io.stdout, renderReport(shown, report));
  }
  return report.valid ? 0 : 1;
}

/**
 * The readable report: one line per problem (file, object id, JSON path, message and code), then one
 * per warning in a table of its own, then a summary that counts both.
 */
export function renderReport(path: string, report: PackageValidationReport): string {
  const { counts, problems, warnings } = report;
  const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  const byType = Object.entries(counts.objectsByType)
    .map(([type, n]) => `${n} ${type}`)
    .join(", ");
  const contents =
    `${plural(counts.files, "file", "files")}, ${plural(counts.objects, "object", "objects")}` +
    (byType === "" ? "" : ` (${terminalSafe(byType)})`) +
    `, ${plural(counts.securities, "security", "securities")}`;
  const { reading, from } = report.lineage;
  const unchecked = Object.entries(counts.uncheckedByType)
    .map(([type, n]) => `${n} ${type}`)
    .join(", ");
  const uncheckedLine =
    unchecked === "" ? "" : `\nfields not checked (OCF 1.2.0 kinds ocf-sync has no schema for; their references and lineage are): ${terminalSafe(unchecked)}`;
  const lineage = `lineage read as ${reading} (${from === "declared" ? "declared in Manifest.comments" : from === "option" ? "--reader" : "the default: the manifest declares none"})`;
  const table = (rows: readonly PackageProblem[], what: string): string =>
    renderTable(rows, [
      { header: "file", value: (p) => p.file },
      { header: "item", value: (p) => p.itemId ?? "-" },
      { header: "path", value: (p) => p.jsonPath },
      { header: what, value: (p) => `${p.message} [${p.code}]` },
    ]);
  const tables = [...(problems.length > 0 ? [table(problems, "problem")] : []), ...(warnings.length > 0 ? [table(warnings, "warning")] : [])];
  const warned = plural(warnings.length, "warning", "warnings");
  const summary = report.valid
    ? warnings.length === 0
      ? `valid: ${terminalSafe(path)}`
      : `valid, ${warned}: ${terminalSafe(path)}`
    : `INVALID: ${plural(problems.length, "problem", "problems")}${warnings.length === 0 ? "" : `, ${warned}`} in ${terminalSafe(path)}`;
  return `${tables.map((t) => `${t}\n\n`).join("")}${summary}\n${contents}${uncheckedLine}\n${lineage}`;
}

