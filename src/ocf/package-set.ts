/**
 * One package's outputs: its folder `<out>/<name>/`, its zip `<out>/<name>.ocf.zip` and its report
 * `<out>/<name>.report.json`. An export puts them in place by separate renames, the folder first (the
 * commit point), then the zip, then the report (export-issuer.ts): no rename covers all three, so a
 * process killed between them (SIGKILL, a power cut) leaves a zip or report of the previous run beside
 * the new folder, never one of a later run (issue 25, item 7).
 *
 * Such a leftover is told apart by the package's identity, the MD5 of its `Manifest.ocf.json` (the
 * manifest lists every other file's MD5 and the package's `generated_at`): the zip holds a manifest, the
 * report lists the manifest's MD5 among its `files`. One whose manifest is not the folder's is stale:
 * the package reader refuses such a zip, and the next export or sync into the folder removes it
 * (`removeStaleCompanions` in package-folder.ts).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { PACKAGE_FILE_NAMES } from "./package-files.js";

/** The name endings of a package's zip and report beside its folder. */
export const COMPANION_SUFFIXES = [".ocf.zip", ".report.json"] as const;

export function md5Hex(bytes: Uint8Array): string {
  return createHash("md5").update(bytes).digest("hex");
}

/** The package folder a zip or report belongs to (`<dir>/<name>` for `<dir>/<name>.ocf.zip`); `undefined` for other names. */
export function folderOfCompanion(path: string): string | undefined {
  const name = basename(path);
  const suffix = COMPANION_SUFFIXES.find((s) => name.endsWith(s) && name.length > s.length);
  return suffix === undefined || name.startsWith(".") ? undefined : join(dirname(path), name.slice(0, -suffix.length));
}

/** The MD5 of the manifest of the package folder `folder`; `undefined` when it has none that can be read. */
export async function folderManifestMd5(folder: string): Promise<string | undefined> {
  try {
    return md5Hex(await readFile(join(folder, PACKAGE_FILE_NAMES.manifest)));
  } catch {
    return undefined;
  }
}

/** The manifest MD5 a report lists (its `files` entry of `Manifest.ocf.json`); `undefined` when it lists none. */
export async function reportManifestMd5(report: string): Promise<string | undefined> {
  try {
    const { files } = JSON.parse(await readFile(report, "utf8")) as { files?: unknown };
    if (!Array.isArray(files)) return undefined;
    const entry: unknown = files.find((f: { path?: unknown }) => f?.path === PACKAGE_FILE_NAMES.manifest);
    const md5 = (entry as { md5?: unknown } | undefined)?.md5;
    return typeof md5 === "string" ? md5 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why the zip or report at `path`, whose package has a manifest of MD5 `manifestMd5`, is stale: the
 * folder beside it holds another package. `undefined` when they match, or when no folder with a
 * readable manifest is there to match.
 */
export async function stalenessOf(path: string, manifestMd5: string | undefined): Promise<string | undefined> {
  const folder = folderOfCompanion(path);
  if (folder === undefined) return undefined;
  const expected = await folderManifestMd5(folder);
  if (expected === undefined || expected === manifestMd5) return undefined;
  return (
    `${path} holds another package than the folder ${folder} beside it: a run was killed after it put the folder in place ` +
    `and before this file; it is stale, and the next export or sync into ${dirname(path)} removes it`
  );
}
