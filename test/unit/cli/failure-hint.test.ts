/** The hint an issuer's failure line gets where one helps, and the code its text line ends with. */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ApiError, NetworkError } from "../../../src/client/errors.js";
import { createReporter, failureHint, logIssuerFailure } from "../../../src/cli/progress.js";
import { OcfSyncError } from "../../../src/errors.js";
import { SourceRecordError } from "../../../src/source/errors.js";

const request = { method: "GET", path: "/v1alpha1/issuers/7/restrictedStockAwards?pageSize=50", attempts: 2 };
const noBody = { grpcCode: undefined, grpcMessage: undefined, reasons: [], bodyText: undefined };
const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
const networkError = (cause: Error): NetworkError => new NetworkError({ ...request, code: "API_NETWORK_ERROR", what: cause.message, cause });
const invalidRecord = new SourceRecordError({
  issuerId: "7",
  kind: "restrictedStockAward",
  recordId: "2207",
  issues: [{ path: ["quantity"], pathText: "quantity", value: "x", message: '"x" is not a decimal' }],
});

describe("failureHint", () => {
  it("no server: check the base URL and the server", () => {
    expect(failureHint(networkError(refused), "fail")).toContain("check --base-url");
    const unknownHost = Object.assign(new Error("getaddrinfo ENOTFOUND api.example.invalid"), { code: "ENOTFOUND" });
    expect(failureHint(networkError(unknownHost), "quarantine")).toContain("check --base-url");
  });

  it("403: the token's scope and access", () => {
    expect(failureHint(new ApiError({ ...request, status: 403, body: noBody }), "fail")).toContain("token's scope");
    expect(failureHint(new ApiError({ ...request, status: 500, body: noBody }), "fail")).toBeUndefined();
  });

  it("an invalid record under --on-invalid fail: quarantine; none under quarantine", () => {
    expect(failureHint(invalidRecord, "fail")).toContain("--on-invalid quarantine");
    expect(failureHint(invalidRecord, "quarantine")).toBeUndefined();
    expect(failureHint(new OcfSyncError("OUTPUT_LOCKED", "held"), "fail")).toBeUndefined();
  });
});

describe("logIssuerFailure", () => {
  const capture = (): Writable & { text: string } => {
    const stream = Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, callback): void {
          stream.text += chunk.toString();
          callback();
        },
      }),
      { text: "" },
    );
    return stream;
  };

  it("a text line ends with the code in brackets, after the hint; a JSON line carries it as a field", () => {
    const plain = capture();
    logIssuerFailure(createReporter(plain, "plain", { env: {} }), "7", networkError(refused), { onInvalid: "fail" });
    expect(plain.text).toMatch(/^error: issuer "7" failed: GET .* after 2 attempts; check --base-url .* \[API_NETWORK_ERROR\]\n$/);
    const json = capture();
    logIssuerFailure(createReporter(json, "json", { env: {} }), "7", invalidRecord, { onInvalid: "fail" });
    expect(JSON.parse(json.text)).toMatchObject({ level: "error", issuerId: "7", code: "SOURCE_RECORD_INVALID", msg: expect.stringContaining("--on-invalid quarantine") as unknown });
  });
});
