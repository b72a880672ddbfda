/** createApiClient's options of the wrong kind, as a JavaScript caller can pass them: named, with the value given. */
import { describe, expect, it } from "vitest";
import { createApiClient } from "../../../src/client/create-client.js";
import { isClientConfigError } from "../../../src/client/errors.js";

function refusal(options: Record<string, unknown>): unknown {
  try {
    void createApiClient({ baseUrl: "http://127.0.0.1:9", ...options } as never);
  } catch (error) {
    return error;
  }
  throw new Error("the options were taken");
}

describe("createApiClient refuses", () => {
  it("an auth type it does not know, naming auth.type (it named auth.tokenUrl, an option not given)", () => {
    const error = refusal({ auth: { type: "basic", username: "u", password: "p" } });
    expect(isClientConfigError(error)).toBe(true);
    expect(error).toMatchObject({ option: "auth.type", message: 'auth.type "basic" is invalid: must be "bearer" or "oauth2"' });
  });

  it.each([
    [{ rateLimit: { perSecond: Number.NaN } }, "rateLimit.perSecond NaN is invalid: must be a number > 0"],
    [{ timeouts: { headersMs: Number.POSITIVE_INFINITY } }, "timeouts.headersMs Infinity is invalid: must be a positive number"],
    [{ retry: { maxAttempts: Number.NaN } }, "retry.maxAttempts NaN is invalid: must be a positive integer"],
  ])("a non-finite number, shown as it was given (it was shown as null): %o", (options, message) => {
    expect(refusal(options)).toMatchObject({ code: "CLIENT_CONFIG_INVALID", message });
  });
});
