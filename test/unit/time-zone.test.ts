import { describe, expect, it } from "vitest";
import { parseCalendarDate, utcToday } from "../../src/dates.js";

describe("the time zone the tests run in", () => {
  it("is the one the project names, and calendar dates ignore it", () => {
    const zone = process.env.TZ;
    expect(["UTC", "Pacific/Kiritimati"]).toContain(zone);
    // the process really runs in that zone: Kiritimati is UTC+14 all year
    expect(new Date(Date.UTC(2024, 0, 1)).getTimezoneOffset()).toBe(zone === "UTC" ? 0 : -840);
    expect(parseCalendarDate("2024-02-29")).toBe("2024-02-29");
    // 2024-01-01T12:00Z is already Jan 2 in Kiritimati; the UTC calendar day stays Jan 1
    expect(utcToday(Date.UTC(2024, 0, 1, 12))).toBe("2024-01-01");
  });
});
