import { describe, expect, it } from "vitest";
import {
  AbortedError,
  ApiError,
  AuthError,
  InvalidIdentifierError,
  NetworkError,
  isAbortedError,
  isApiError,
  isAuthError,
  isInvalidIdentifierError,
  isNetworkError,
  parseErrorBody,
} from "../../../src/client/errors.js";
import { OcfSyncError, isOcfSyncError } from "../../../src/errors.js";

const context = { method: "GET", path: "/v1alpha1/issuers/7/restrictedStockAwards", attempts: 1 };

describe("parseErrorBody", () => {
  it("reads google.rpc.Status with ErrorInfo reasons", () => {
    const body = parseErrorBody(
      JSON.stringify({
        code: 7,
        message: "Access to resource denied",
        details: [{ "@type": "type.googleapis.com/carta.proto.publicapi.errors.v1alpha1.ErrorInfo", reason: "INSUFFICIENT_SCOPE", metadata: {} }],
      }),
    );
    expect(body).toMatchObject({ grpcCode: 7, grpcMessage: "Access to resource denied", reasons: ["INSUFFICIENT_SCOPE"] });
  });

  it("reads the flat 429 body, a Status without details, raw text and nothing", () => {
    expect(parseErrorBody('{ "message": "API rate limit exceeded" }')).toMatchObject({
      grpcCode: undefined,
      grpcMessage: "API rate limit exceeded",
      reasons: [],
    });
    expect(parseErrorBody('{"code":5,"message":"Resource not found"}')).toMatchObject({ grpcCode: 5, reasons: [] });
    expect(parseErrorBody("<html>\n<body>502 Bad Gateway</body>\n</html>")).toEqual({
      grpcCode: undefined,
      grpcMessage: undefined,
      reasons: [],
      bodyText: "<html> <body>502 Bad Gateway</body> </html>",
    });
    expect(parseErrorBody("")).toEqual({ grpcCode: undefined, grpcMessage: undefined, reasons: [], bodyText: undefined });
    expect(parseErrorBody("[1,2]").grpcMessage).toBeUndefined();
    expect(parseErrorBody('{"details":"not a list","code":"x"}')).toMatchObject({ grpcCode: undefined, reasons: [] });
  });

  it("cuts long bodies", () => {
    expect(parseErrorBody("x".repeat(5000)).bodyText).toHaveLength(500);
  });
});

describe("ApiError", () => {
  it("reads well and keeps every field", () => {
    const error = new ApiError({
      ...context,
      status: 403,
      body: parseErrorBody('{"code":7,"message":"Access to resource denied","details":[{"reason":"INSUFFICIENT_SCOPE"}]}'),
    });
    expect(error.message).toBe(
      "GET /v1alpha1/issuers/7/restrictedStockAwards failed with 403 PERMISSION_DENIED (INSUFFICIENT_SCOPE): Access to resource denied after 1 attempt",
    );
    expect(error).toMatchObject({ code: "API_FORBIDDEN", status: 403, grpcCode: 7, reasons: ["INSUFFICIENT_SCOPE"], attempts: 1 });
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      name: "ApiError",
      code: "API_FORBIDDEN",
      message: error.message,
      status: 403,
      path: context.path,
    });
  });

  it.each([
    [400, "API_BAD_REQUEST"],
    [401, "API_UNAUTHORIZED"],
    [403, "API_FORBIDDEN"],
    [404, "API_NOT_FOUND"],
    [429, "API_RATE_LIMITED"],
    [500, "API_SERVER_ERROR"],
    [503, "API_SERVER_ERROR"],
    [301, "API_HTTP_ERROR"],
    [418, "API_HTTP_ERROR"],
  ])("maps status %i to %s", (status, code) => {
    const error = new ApiError({ ...context, attempts: 6, status, body: parseErrorBody("") });
    expect(error.code).toBe(code);
    expect(error.message).toBe(`GET ${context.path} failed with ${status} after 6 attempts`);
  });
});

describe("guards", () => {
  it("work by code, so an error from another copy of the package still answers", () => {
    const foreign = Object.assign(new OcfSyncError("API_NOT_FOUND", "elsewhere"), {});
    expect(isApiError(foreign)).toBe(true);
    expect(isNetworkError(foreign)).toBe(false);
    expect(isNetworkError(new NetworkError({ ...context, code: "API_TIMEOUT", what: "timed out", cause: undefined }))).toBe(true);
    expect(isAbortedError(new AbortedError("GET /x", undefined))).toBe(true);
    expect(isAuthError(new AuthError({ failure: "EMPTY_SCOPE", tokenUrl: "https://login/o", detail: "empty" }))).toBe(true);
    expect(isInvalidIdentifierError(new InvalidIdentifierError("..", "dot"))).toBe(true);
    expect(isApiError(new Error("API_NOT_FOUND"))).toBe(false);
    expect(isOcfSyncError(new AbortedError("GET /x", undefined))).toBe(true);
  });

  it("AuthError is retryable only for network failures, 429 and 5xx", () => {
    const make = (status: number | undefined): AuthError =>
      new AuthError({
        failure: status === undefined ? "TOKEN_ENDPOINT_NETWORK" : "TOKEN_ENDPOINT_STATUS",
        tokenUrl: "https://login/o",
        detail: "x",
        ...(status === undefined ? {} : { status }),
      });
    expect([undefined, 429, 500, 503].map((s) => make(s).retryable)).toEqual([true, true, true, true]);
    expect([400, 401, 403].map((s) => make(s).retryable)).toEqual([false, false, false]);
  });
});
