/** The stamp every machine-readable document opens with: the running version, and an instant in UTC. */
import { describe, expect, it } from "vitest";
import { documentStamp, stamped } from "../../src/document-stamp.js";
import { ocfSyncVersion } from "../../src/version.js";

describe("stamped", () => {
  it("puts the version and the instant first, the document's own fields after in their order", () => {
    const document = stamped({ b: 1, a: [2] }, Date.UTC(2026, 10, 27, 16, 45, 44, 7));
    expect(JSON.stringify(document)).toBe(`{"ocfSyncVersion":"${ocfSyncVersion()}","generatedAt":"2026-11-27T16:45:44.007Z","b":1,"a":[2]}`);
  });

  it("keeps a pinned time as it was given (a --generated-at with its offset), and a Date as its UTC instant", () => {
    expect(documentStamp("2025-07-01T09:00:00+02:00").generatedAt).toBe("2025-07-01T09:00:00+02:00");
    expect(documentStamp(new Date("2025-07-01T09:00:00+02:00")).generatedAt).toBe("2025-07-01T07:00:00.000Z");
  });

  it("replaces a stamp the document carried: one pair of fields, the new one", () => {
    const again = stamped({ ocfSyncVersion: "0.0.1", generatedAt: "2000-01-01T00:00:00Z", x: true }, "2026-01-01T00:00:00Z");
    expect(again).toEqual({ ocfSyncVersion: ocfSyncVersion(), generatedAt: "2026-01-01T00:00:00Z", x: true });
    expect(Object.keys(again)).toEqual(["ocfSyncVersion", "generatedAt", "x"]);
  });
});
