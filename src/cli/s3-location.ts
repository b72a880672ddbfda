/**
 * `s3://` locations on the command line: the location parsed and the S3 client made, with what can be
 * wrong before any request (a malformed location, the optional SDK not installed) as usage errors.
 */
import { createS3Client, parseS3Url, S3ClientMissingError, type S3Location } from "../io/s3.js";
import type { S3Target } from "../export/s3-package.js";
import { UsageError, type CliIo } from "./io.js";

/** The client for `url` (`--out` for an export, the package for validate), named `what` in errors. */
export async function s3TargetOf(what: string, url: string, io: CliIo): Promise<S3Target> {
  let location: S3Location;
  try {
    location = parseS3Url(url);
  } catch (error) {
    throw new UsageError(`${what} ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return { ...(await createS3Client(io.env)), location };
  } catch (error) {
    if (error instanceof S3ClientMissingError) throw new UsageError(error.message, { code: error.code, cause: error });
    throw error;
  }
}
