// `node --import` this file to run as if @aws-sdk/client-s3 were not installed (its resolution fails
// the way a missing package's does), for the test of the usage error that names it.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === "@aws-sdk/client-s3") {
    const error = new Error("Cannot find package '@aws-sdk/client-s3'");
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}`)}`,
);
