/**
 * Packages in object storage (issue 26, item 5). Object storage has no `rename`, so the local
 * protocol (a temporary folder renamed into place) cannot hold there. Instead a package is written
 * locally as usual, its files are uploaded one by one (streams: no package is held in memory), and
 * LAST one small object, `<prefix>/<name>/.ocf-sync-complete.json`, marks it complete: it lists every
 * object of the package with its size, MD5 and the ETag its upload returned. A reader trusts a package
 * only through its marker, and only when every object it lists still has that ETag; an upload cut
 * short leaves no new marker, so the half-written package does not count.
 *
 * The marker is written with a conditional request (S3 conditional writes, 2024): `If-None-Match: *`
 * for a new package, `If-Match: <the ETag read before the upload>` to replace one, so of two writers
 * of the same package exactly one commits; the other gets `S3_COMMIT_CONFLICT`.
 *
 * Each object is one `PutObject`, which S3 takes up to 5 GiB; a package file is far smaller (files are
 * split well below that), so multipart upload is not needed.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { readFile, readdir, rm, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import { makeFolder } from "../io/folders.js";
import { aborting, type S3Location, type S3Target, s3CommitObject, s3GetObject, s3Key, s3ObjectEtag, s3PutFile, s3Send } from "../io/s3.js";
import type { IssuerExport } from "./export-issuer.js";

/** The marker's name inside the package's folder. */
export const COMPLETE_MARKER = ".ocf-sync-complete.json";

/** One object of a package, as its marker lists it. */
export interface PackageObject {
  /** The key under the location's prefix: `<name>/Manifest.ocf.json`, `<name>.ocf.zip`, `<name>.report.json`. */
  path: string;
  bytes: number;
  md5: string;
  /** The ETag its upload returned, quotes included. */
  etag: string;
}

/** The content of `<prefix>/<name>/.ocf-sync-complete.json`. */
export interface CompleteMarker {
  format: "ocf-sync-complete";
  version: 1;
  issuerId: string;
  name: string;
  /** The manifest's `generated_at`. */
  generatedAt: string;
  /** The MD5 of `<name>/Manifest.ocf.json`. */
  manifestMd5: string;
  objects: PackageObject[];
}

export type { S3Target } from "../io/s3.js";

const PACKAGE_CONFLICT = "another writer committed this package meanwhile";

/** The files under `folder`, as `/`-separated paths relative to it, sorted. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

async function md5Of(path: string, signal: AbortSignal | undefined): Promise<string> {
  const hash = createHash("md5");
  await pipeline(createReadStream(path), hash, signal === undefined ? {} : { signal });
  return hash.digest("hex");
}

/**
 * Uploads the package `exported` wrote locally (its folder, zip and report) under `target`'s prefix,
 * then commits it with its marker (see the file's comment). Returns the marker.
 */
export async function uploadPackage(target: S3Target, exported: IssuerExport, options: { signal?: AbortSignal } = {}): Promise<CompleteMarker> {
  const { signal } = options;
  const markerKey = s3Key(target.location, `${exported.name}/${COMPLETE_MARKER}`);
  // Read before any upload: committing with If-Match on it fails if another writer committed since.
  const previous = await s3ObjectEtag(target, markerKey, signal);
  const local = (await filesUnder(exported.folder)).map((file) => ({ path: `${exported.name}/${file}`, file: join(exported.folder, file) }));
  for (const companion of [exported.zip, exported.report]) {
    if (companion !== undefined) local.push({ path: relative(dirname(exported.folder), companion).split(sep).join("/"), file: companion });
  }
  const objects: PackageObject[] = [];
  for (const { path, file } of local) {
    signal?.throwIfAborted();
    const md5 = await md5Of(file, signal);
    const { size } = await stat(file);
    const etag = await s3PutFile(target, s3Key(target.location, path), file, { md5, signal });
    objects.push({ path, bytes: size, md5, etag: etag ?? `"${md5}"` });
  }
  const manifest = objects.find((o) => o.path === `${exported.name}/Manifest.ocf.json`);
  const generatedAt = (JSON.parse(await readFile(join(exported.folder, "Manifest.ocf.json"), "utf8")) as { generated_at?: unknown }).generated_at;
  const marker: CompleteMarker = {
    format: "ocf-sync-complete",
    version: 1,
    issuerId: exported.issuerId,
    name: exported.name,
    generatedAt: typeof generatedAt === "string" ? generatedAt : "",
    manifestMd5: manifest?.md5 ?? "",
    objects,
  };
  signal?.throwIfAborted();
  await s3CommitObject(target, markerKey, `${JSON.stringify(marker, null, 2)}\n`, previous, PACKAGE_CONFLICT, signal);
  return marker;
}

function isPackagePath(name: string, path: unknown): boolean {
  if (typeof path !== "string") return false;
  if (path === `${name}.ocf.zip` || path === `${name}.report.json`) return true;
  const parts = path.split("/");
  return parts[0] === name && parts.length > 1 && parts.every((part) => part !== "" && part !== "." && part !== "..");
}

/**
 * The marker of package `name` under `target`'s prefix when the package is complete: the marker
 * exists and every object it lists is there with the ETag it lists. `undefined` otherwise (never
 * committed, or being replaced: its objects no longer match).
 */
export async function committedPackage(target: S3Target, name: string, options: { signal?: AbortSignal } = {}): Promise<CompleteMarker | undefined> {
  const { signal } = options;
  const markerKey = s3Key(target.location, `${name}/${COMPLETE_MARKER}`);
  const got = await s3GetObject(target, markerKey, signal);
  if (got === undefined) return undefined;
  const text = (await got.Body?.transformToString("utf8")) ?? "";
  const marker = JSON.parse(text) as CompleteMarker;
  if (marker.format !== "ocf-sync-complete" || marker.version !== 1 || marker.name !== name) return undefined;
  // A marker names only the package's own keys: its folder's files, its zip and its report.
  if (!marker.objects.every((object) => isPackagePath(name, object.path))) return undefined;
  for (const object of marker.objects) {
    const key = s3Key(target.location, object.path);
    const etag = await s3ObjectEtag(target, key, signal);
    if (etag !== object.etag) return undefined;
  }
  return marker;
}

/**
 * Downloads the complete package `name` into `outDir` (`<outDir>/<name>/...`, its zip and report), each
 * object read only if it still has the ETag its marker lists (`If-Match`), streamed to disk. Returns
 * the marker, or `undefined` when the package is not complete (nothing is written then).
 */
export async function downloadPackage(target: S3Target, name: string, outDir: string, options: { signal?: AbortSignal } = {}): Promise<CompleteMarker | undefined> {
  const { signal } = options;
  const marker = await committedPackage(target, name, options);
  if (marker === undefined) return undefined;
  for (const object of marker.objects) {
    const key = s3Key(target.location, object.path);
    const got = await s3Send("download", key, () =>
      target.client.send(new target.sdk.GetObjectCommand({ Bucket: target.location.bucket, Key: key, IfMatch: object.etag }), aborting(signal)),
    );
    const file = join(outDir, ...object.path.split("/"));
    await makeFolder(dirname(file));
    await pipeline(got.Body as Readable, createWriteStream(file), signal === undefined ? {} : { signal });
  }
  return marker;
}

/** The `s3://` URL of `relative` under `location`'s prefix. */
export function s3UrlOf(location: S3Location, relative: string): string {
  return `s3://${location.bucket}/${s3Key(location, relative)}`;
}

/**
 * Uploads and commits the package `exported` wrote in `localDir` (see {@link uploadPackage}), then
 * removes the local copy, so that the disk holds at most the packages under way. Returns it named by
 * its `s3://` URLs.
 */
export async function placePackage(target: S3Target, localDir: string, exported: IssuerExport, options: { signal?: AbortSignal } = {}): Promise<IssuerExport> {
  await uploadPackage(target, exported, options);
  const urlOf = (local: string): string => s3UrlOf(target.location, relative(localDir, local).split(sep).join("/"));
  const at = { ...exported, folder: urlOf(exported.folder), report: urlOf(exported.report), zip: exported.zip === undefined ? undefined : urlOf(exported.zip) };
  await Promise.all([exported.folder, exported.report, exported.zip].map((path) => (path === undefined ? undefined : rm(path, { recursive: true, force: true }))));
  return at;
}
