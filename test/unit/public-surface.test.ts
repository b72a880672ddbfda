import { describe, expect, it } from "vitest";
import * as api from "../../src/index.js";

describe("the public surface", () => {
  it("exports the pieces a migration job needs", () => {
    for (const name of [
      "createApiClient",
      "createRateLimiter",
      "pullIssuer",
      "pullIssuers",
      "streamIssuerRecords",
      "getAward",
      "getUnit",
      "parseRecord",
      "validateOcfObject",
      "startSampleServer",
      "isOcfSyncError",
    ]) {
      expect(typeof (api as Record<string, unknown>)[name], name).toBe("function");
    }
  });
});
