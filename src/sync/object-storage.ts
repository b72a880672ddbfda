/**
 * A sync in object storage (issue 26, item 5): its packages (`s3Out`), kept as `export --out s3://`
 * keeps them (`export/s3-package.ts`), and its state (`s3State`).
 *
 * The state: `s3://bucket/key` holds the state file, and
 * `<key>.snapshots/<package name>/<file>` the records it names (the store, `store.ts`).
 *
 * The sync works on a local copy: the state object is read with its ETag and the store files it names
 * are downloaded (streamed) before the sync starts; the passes write the local copy as usual. At the
 * end, the store files the new state names are uploaded, then the state object is written with
 * `If-Match: <the ETag read>` (`If-None-Match: *` when there was none). That conditional write is the
 * commit point: a sync killed before it leaves the previous state, whose store files are never
 * overwritten (each generation has new names), and the next sync redoes the work from there. Of two
 * syncs of one state, the one that writes second loses its condition and gets `S3_COMMIT_CONFLICT`
 * (its packages were committed on their own markers; the next sync writes them again as needed).
 *
 * Store files the previous state named and the new one does not are deleted once the new one is
 * committed. Files a killed sync uploaded are named as the next sync's are, so that sync overwrites them.
 */
import { createWriteStream } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import { writeFileAtomic } from "../io/atomic-file.js";
import { makeFolder } from "../io/folders.js";
import { aborting, s3CommitObject, s3GetObject, s3PutFile, type S3Target } from "../io/s3.js";
import { packageNameFor } from "../ocf/package-folder.js";
import { committedPackage, placePackage, s3UrlOf } from "../export/s3-package.js";
import { storeFilesOf, type PackageOutlet } from "./pass.js";
import { readSyncState, snapshotFolderOf, type SyncState } from "./state.js";

const STATE_CONFLICT = "another sync committed this state meanwhile; run the sync again (it starts from that state)";

/** The state object as last read or committed. */
export interface RemoteSyncState {
  /** Its bucket and key (`location.prefix` is the key). */
  readonly target: S3Target;
  /** The ETag it had; `undefined` while there is none. */
  etag: string | undefined;
  /** The store files it names, as `<package name>/<file>`. */
  named: Set<string>;
}

/** The store files `state` names, as `<package name>/<file>`. */
function namedFiles(state: SyncState): Set<string> {
  const named = new Set<string>();
  for (const issuer of state.issuers) for (const file of storeFilesOf(issuer)) named.add(`${packageNameFor(issuer.issuerId)}/${file}`);
  return named;
}

function snapshotKey(target: S3Target, file: string): string {
  return `${snapshotFolderOf(target.location.prefix)}/${file}`;
}

/**
 * Reads the state object into `stateFile` (replacing what is there; removed when there is no object),
 * and downloads the store files it names into `<stateFile>.snapshots/`. A store file that is missing
 * is left out: its issuer's next pass is a full one (`snapshot-missing`).
 */
export async function fetchSyncState(target: S3Target, stateFile: string, options: { signal?: AbortSignal } = {}): Promise<RemoteSyncState> {
  const { signal } = options;
  const key = target.location.prefix;
  const got = await s3GetObject(target, key, signal);
  if (got === undefined) {
    await rm(stateFile, { force: true });
    return { target, etag: undefined, named: new Set() };
  }
  // A state is one line per issuer: small, unlike a package.
  const text = (await got.Body?.transformToString("utf8")) ?? "";
  await writeFileAtomic(stateFile, text, signal === undefined ? {} : { signal });
  const named = namedFiles(await readSyncState(stateFile, options));
  const snapshots = snapshotFolderOf(stateFile);
  for (const file of named) {
    const objectKey = snapshotKey(target, file);
    const stored = await s3GetObject(target, objectKey, signal);
    if (stored === undefined) continue;
    const local = join(snapshots, ...file.split("/"));
    await makeFolder(dirname(local));
    await pipeline(stored.Body as Readable, createWriteStream(local), signal === undefined ? {} : { signal });
  }
  return { target, etag: got.ETag, named };
}

/**
 * Commits `stateFile` to the state object (see the file's comment): uploads the store files it names
 * that the object's state did not, writes the object conditionally, then deletes the store files no
 * longer named. Updates `remote` to what it committed.
 * @throws {S3RequestError} `S3_COMMIT_CONFLICT` when another sync committed the state since it was read
 */
export async function commitSyncState(remote: RemoteSyncState, stateFile: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  const { signal } = options;
  const { target } = remote;
  const { bucket, prefix: key } = target.location;
  const named = namedFiles(await readSyncState(stateFile, options));
  const snapshots = snapshotFolderOf(stateFile);
  for (const file of named) {
    if (remote.named.has(file)) continue;
    const local = join(snapshots, ...file.split("/"));
    const objectKey = snapshotKey(target, file);
    await s3PutFile(target, objectKey, local, { signal });
  }
  const text = await readFile(stateFile, "utf8");
  const etag = await s3CommitObject(target, key, text, remote.etag, STATE_CONFLICT, signal);
  const obsolete = [...remote.named].filter((file) => !named.has(file));
  remote.etag = etag;
  remote.named = named;
  // Left behind when a delete fails: unnamed, they cost only their bytes.
  for (const file of obsolete) {
    await target.client.send(new target.sdk.DeleteObjectCommand({ Bucket: bucket, Key: snapshotKey(target, file) }), aborting(signal)).catch(() => {});
  }
}

/**
 * Packages kept in object storage (`SyncOptions.s3Out`): written in `localDir`, then uploaded and
 * committed by their marker; one is there when its committed marker is (with its zip, when asked for).
 */
export function objectStorageOutlet(target: S3Target, localDir: string): PackageOutlet {
  return {
    where: (name, zip) => ({ folder: s3UrlOf(target.location, name), zip: zip ? s3UrlOf(target.location, `${name}.ocf.zip`) : null }),
    present: async (name, zip, signal) => {
      const marker = await committedPackage(target, name, { signal });
      return marker !== undefined && (!zip || marker.objects.some((object) => object.path === `${name}.ocf.zip`));
    },
    place: (written, signal) => placePackage(target, localDir, written, { signal }),
  };
}
