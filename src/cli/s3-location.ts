/**
 * `s3://` locations on the command line: the location parsed and the S3 client made, with what can be
 * wrong before any request (a malformed location, the optional SDK not installed) as usage errors.
 */
import { createS3Client, loadS3Sdk, parseS3Url, S3ClientMissingError, type ObjectStorageOptions, type S3Location, type S3Target } from "../io/s3.js";
import { UsageError, type CliIo } from "./io.js";

function locationOf(what: string, url: string): S3Location {
  try {
    return parseS3Url(url);
  } catch (error) {
    throw new UsageError(`${what} ${error instanceof Error ? error.message : String(error)}`);
  }
}

function usageWithoutSdk(error: unknown): unknown {
  return error instanceof S3ClientMissingError ? new UsageError(error.message, { code: error.code, cause: error }) : error;
}

/**
 * The library's options for `url` (`--out` or `--state` of a sync), checked as far as can be before
 * any request: `objectKey` when the location names one object (a state), not a prefix.
 */
export async function objectStorageOf(what: string, url: string, io: CliIo, objectKey = false): Promise<ObjectStorageOptions> {
  const location = locationOf(what, url);
  if (objectKey && location.prefix === "") throw new UsageError(`${what} s3://BUCKET/KEY names an object: give its key, such as ${url.replace(/\/+$/, "")}/sync-state.json`);
  await loadS3Sdk().catch((error: unknown) => {
    throw usageWithoutSdk(error);
  });
  return { url, env: io.env };
}

/** The client for `url` (`--out` for an export, the package for validate), named `what` in errors. */
export async function s3TargetOf(what: string, url: string, io: CliIo): Promise<S3Target> {
  const location = locationOf(what, url);
  try {
    return { ...(await createS3Client(io.env)), location };
  } catch (error) {
    throw usageWithoutSdk(error);
  }
}
