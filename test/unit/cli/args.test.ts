/** How the command line reads a span in seconds (`sync --overlap`), and options from the arguments as typed. */
import { describe, expect, it } from "vitest";
import { parseSeconds, typedFlag, typedValue } from "../../../src/cli/args.js";

describe("parseSeconds", () => {
  it.each([
    ["300", 300],
    ["0", 0],
    ["90s", 90],
    ["5m", 300],
    ["1.5m", 90],
    ["1h", 3600],
    [" 5m ", 300],
    ["168h", 604_800],
  ])("reads %j as %d seconds", (text, seconds) => {
    expect(parseSeconds("overlap", text)).toBe(seconds);
  });

  it("gives nothing for an option not given", () => {
    expect(parseSeconds("overlap", undefined)).toBeUndefined();
  });

  it.each(["5 minutes", "1.5s", "-5", "169h", "", "5ms", "1e3", "0x10"])("refuses %j, naming the option and the forms it takes", (text) => {
    expect(() => parseSeconds("overlap", text)).toThrow(/^--overlap (takes whole seconds \(300\) or a duration with its unit \(90s, 5m, 1h\), up to 168h; got|takes a whole number|must be between)/);
  });
});

describe("typedValue and typedFlag: options read from the arguments as typed, before (or without) parsing them", () => {
  it.each([
    [["export", "--log", "json"], "json"],
    [["export", "--log=json", "--bogus"], "json"],
    [["--log", "plain", "--log", "json"], "json"],
    [["--log", "json", "--log=plain"], "plain"],
    [["--log"], undefined],
    [["--", "--log", "json"], undefined],
    [["--logs", "json"], undefined],
  ])("%j gives --log %j", (argv, value) => {
    expect(typedValue(argv, "log")).toBe(value);
  });

  it.each([
    [["export", "--json"], true],
    [["export", "--json=yes"], true],
    [["export", "--jsonl"], false],
    [["export", "--", "--json"], false],
  ])("%j gives --json %j", (argv, given) => {
    expect(typedFlag(argv, "json")).toBe(given);
  });
});
