/**
 * Object-storage locations and errors, without the AWS SDK: what the public API names (the library's
 * `s3Out`/`s3State` options and the errors a job may throw), so that its type declarations never
 * need the optional `@aws-sdk/client-s3` installed. The client itself is in `s3.ts`.
 */
import { OcfSyncError } from "../errors.js";

/** The package to install for `s3://` locations. */
export const S3_CLIENT_PACKAGE = "@aws-sdk/client-s3";

/** A bucket and a key prefix (no leading or trailing `/`; `""` for the bucket's root). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/**
 * An object-storage location a job writes to, for the library (the CLI takes `s3://` in `--out` and
 * `--state`). The client is made the AWS SDK's usual way from `env`.
 *
 * @example
 * ```ts no-run: needs an S3 bucket and @aws-sdk/client-s3
 * import { createApiClient, sync } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * const s3Out = { url: "s3://my-bucket/ocf/packages" };
 * for await (const event of sync(client, ["7"], { outDir: "work", stateFile: "work/sync-state.json", s3Out })) console.log(event.type);
 * await client.close();
 * ```
 *
 * @category Sync
 */
export interface ObjectStorageOptions {
  /** `s3://BUCKET/PREFIX` (for a state, `s3://BUCKET/KEY`). */
  url: string;
  /**
   * Where the client's settings come from: `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
   * `AWS_SESSION_TOKEN`, `AWS_ENDPOINT_URL_S3` (an S3-compatible store); the SDK's usual chain
   * (profiles, roles) for what is not set.
   * @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Whether `text` names an object-storage location rather than a local path. */
export function isS3Url(text: string): boolean {
  return /^s3:\/\//i.test(text);
}

/** Parses `s3://bucket/prefix`; a `RangeError` says what is wrong. */
export function parseS3Url(text: string): S3Location {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/i.exec(text);
  const bucket = match?.[1];
  if (bucket === undefined || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new RangeError(`an object-storage location is s3://BUCKET/PREFIX with a valid bucket name, got ${JSON.stringify(text)}`);
  }
  const prefix = (match?.[2] ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix.split("/").some((part) => part === "." || part === "..")) {
    throw new RangeError(`an object-storage prefix has no "." or ".." parts, got ${JSON.stringify(text)}`);
  }
  return { bucket, prefix };
}

/** The key of `relative` under `location`'s prefix. */
export function s3Key(location: S3Location, relative: string): string {
  return location.prefix === "" ? relative : `${location.prefix}/${relative}`;
}

/**
 * Raised when an `s3://` location is used but `@aws-sdk/client-s3` is not installed.
 *
 * @category Errors
 */
export class S3ClientMissingError extends OcfSyncError {
  declare readonly code: "S3_CLIENT_MISSING";
  constructor(cause: unknown) {
    super("S3_CLIENT_MISSING", `s3:// locations need the optional package ${S3_CLIENT_PACKAGE}: install it beside ocf-sync (npm install ${S3_CLIENT_PACKAGE})`, { cause });
    this.name = "S3ClientMissingError";
  }
}

/**
 * A request to object storage failed: the operation, the key and the HTTP status when there was one.
 * `S3_COMMIT_CONFLICT`: a conditional write (a package's marker, a sync's state) found that another
 * writer committed first; `S3_REQUEST_FAILED`: anything else.
 *
 * @category Errors
 */
export class S3RequestError extends OcfSyncError {
  declare readonly code: "S3_REQUEST_FAILED" | "S3_COMMIT_CONFLICT";
  readonly key: string;
  readonly status: number | undefined;
  constructor(code: S3RequestError["code"], operation: string, key: string, status: number | undefined, message: string, cause: unknown) {
    super(code, `${operation} s3 object ${JSON.stringify(key)} failed${status === undefined ? "" : ` (HTTP ${status})`}: ${message}`, { cause });
    this.name = "S3RequestError";
    this.key = key;
    this.status = status;
  }
}

/** The HTTP status of an SDK error, when it has one. */
export function s3StatusOf(error: unknown): number | undefined {
  const metadata = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata;
  return typeof metadata?.httpStatusCode === "number" ? metadata.httpStatusCode : undefined;
}
