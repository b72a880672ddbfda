/**
 * Object storage (issue 26, item 5): `s3://bucket/prefix` locations and the AWS SDK v3 S3 client.
 *
 * The SDK is large and optional (an optional peer dependency): it is imported only when an `s3://`
 * location is used, and its absence is an error that names the package to install. Credentials,
 * region and endpoint come the SDK's usual way (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, profiles, roles,
 * `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`); with an endpoint set, requests use path-style URLs,
 * which S3-compatible stores (MinIO, Ceph, moto) expect.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { GetObjectCommandOutput, S3Client } from "@aws-sdk/client-s3";

export {
  type ObjectStorageOptions,
  S3ClientMissingError,
  S3_CLIENT_PACKAGE,
  type S3Location,
  S3RequestError,
  isS3Url,
  parseS3Url,
  s3Key,
  s3StatusOf,
} from "./s3-location.js";
import { type ObjectStorageOptions, type S3Location, S3ClientMissingError, S3RequestError, S3_CLIENT_PACKAGE, parseS3Url, s3StatusOf } from "./s3-location.js";

/** The client for `options`; a `RangeError` for a malformed URL, {@link S3ClientMissingError} without the SDK. */
export async function openObjectStorage(options: ObjectStorageOptions): Promise<S3Target> {
  const location = parseS3Url(options.url);
  return { ...(await createS3Client(options.env)), location };
}

/** The SDK's module, imported on first use. */
export type S3Sdk = typeof import("@aws-sdk/client-s3");

/** The S3 client and the SDK's commands it is used with, and where. */
export interface S3Target {
  sdk: S3Sdk;
  client: S3Client;
  location: S3Location;
}

/**
 * The error of a failed request. A `commit` (a conditional write) that loses its condition (412; 409:
 * a concurrent conditional write won, AWS's ConditionalRequestConflict) is `S3_COMMIT_CONFLICT`, with
 * `conflict` as its message.
 */
export function s3RequestError(operation: string, key: string, error: unknown, conflict = "another writer committed this object meanwhile"): S3RequestError {
  const status = s3StatusOf(error);
  const lost = operation === "commit" && (status === 412 || status === 409);
  const message = lost ? conflict : error instanceof Error ? error.message : String(error);
  return new S3RequestError(lost ? "S3_COMMIT_CONFLICT" : "S3_REQUEST_FAILED", operation, key, status, message, error);
}

function isAbort(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === "AbortError";
}

/** Runs one request; a failure becomes {@link s3RequestError}'s (an abort stays as it is). */
export async function s3Send<T>(operation: string, key: string, run: () => Promise<T>, conflict?: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isAbort(error)) throw error;
    throw s3RequestError(operation, key, error, conflict);
  }
}

/** The SDK's per-request option for `signal`. */
export function aborting(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal === undefined ? {} : { abortSignal: signal };
}

/** The object `key` (its body to read), or `undefined` when there is none. */
export async function s3GetObject(target: S3Target, key: string, signal: AbortSignal | undefined): Promise<GetObjectCommandOutput | undefined> {
  try {
    return await target.client.send(new target.sdk.GetObjectCommand({ Bucket: target.location.bucket, Key: key }), aborting(signal));
  } catch (error) {
    if (s3StatusOf(error) === 404) return undefined;
    if (isAbort(error)) throw error;
    throw s3RequestError("read", key, error);
  }
}

/** The ETag of the object `key` now, or `undefined` when there is none. */
export async function s3ObjectEtag(target: S3Target, key: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  try {
    const head = await target.client.send(new target.sdk.HeadObjectCommand({ Bucket: target.location.bucket, Key: key }), aborting(signal));
    return head.ETag;
  } catch (error) {
    if (s3StatusOf(error) === 404) return undefined;
    if (isAbort(error)) throw error;
    throw s3RequestError("read", key, error);
  }
}

/**
 * Uploads the local file `file` as the object `key`, streamed (`md5`, hex, makes the store check the
 * bytes it got). Returns the ETag the store gave, if any.
 */
export async function s3PutFile(target: S3Target, key: string, file: string, options: { md5?: string; signal?: AbortSignal | undefined } = {}): Promise<string | undefined> {
  const { size } = await stat(file);
  const put = await s3Send("upload", key, () =>
    target.client.send(
      new target.sdk.PutObjectCommand({
        Bucket: target.location.bucket,
        Key: key,
        Body: createReadStream(file),
        ContentLength: size,
        ...(options.md5 === undefined ? {} : { ContentMD5: Buffer.from(options.md5, "hex").toString("base64") }),
        ContentType: "application/json",
      }),
      aborting(options.signal),
    ),
  );
  return put.ETag;
}

/**
 * Writes `body` as the object `key` only if it is still as this writer last read it: `If-Match` on
 * `previous` (its ETag), or `If-None-Match: *` when there was none. This conditional write is the commit
 * point of a package (its marker) and of a sync's state; losing it is `S3_COMMIT_CONFLICT` with
 * `conflict` as its message. Returns the new ETag.
 */
export async function s3CommitObject(target: S3Target, key: string, body: string, previous: string | undefined, conflict: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  const put = await s3Send(
    "commit",
    key,
    () =>
      target.client.send(
        new target.sdk.PutObjectCommand({
          Bucket: target.location.bucket,
          Key: key,
          Body: body,
          ContentType: "application/json",
          ...(previous === undefined ? { IfNoneMatch: "*" } : { IfMatch: previous }),
        }),
        aborting(signal),
      ),
    conflict,
  );
  return put.ETag;
}

let sdk: Promise<S3Sdk> | undefined;

/** Imports the SDK; {@link S3ClientMissingError} when it is not installed. */
export function loadS3Sdk(): Promise<S3Sdk> {
  sdk ??= import(S3_CLIENT_PACKAGE).catch((error: unknown) => {
    sdk = undefined;
    const code = (error as { code?: unknown } | null)?.code;
    throw code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" ? new S3ClientMissingError(error) : error;
  }) as Promise<S3Sdk>;
  return sdk;
}

/**
 * An S3 client configured the SDK's usual way from `env`. An endpoint (`AWS_ENDPOINT_URL_S3`, else
 * `AWS_ENDPOINT_URL`) turns on path-style requests; the region defaults to `us-east-1` when none is set
 * (an S3-compatible store rarely cares, and AWS redirects to the bucket's region).
 */
export async function createS3Client(env: Readonly<Record<string, string | undefined>> = process.env): Promise<{ sdk: S3Sdk; client: S3Client }> {
  const loaded = await loadS3Sdk();
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  // Keys given in `env` are used as they are; else the SDK's chain (process environment, profiles, roles).
  const accessKeyId = env.AWS_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY || undefined;
  const sessionToken = env.AWS_SESSION_TOKEN || undefined;
  const client = new loaded.S3Client({
    ...(endpoint === undefined ? {} : { endpoint, forcePathStyle: true }),
    ...(accessKeyId === undefined || secretAccessKey === undefined ? {} : { credentials: { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) } }),
    ...(region === undefined ? {} : { region }),
    ...(region === undefined && endpoint !== undefined ? { region: "us-east-1" } : {}),
  });
  return { sdk: loaded, client };
}
