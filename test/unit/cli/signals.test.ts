/** The signal handlers on a stand-in process: one line and one abort at the first signal, an exit at the second. */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { afterStopHint, stopOnSignals } from "../../../src/cli/signals.js";
import { isInterruptedError } from "../../../src/errors.js";
import { Capture } from "../../helpers/capture.js";

function setUp(): { emitter: EventEmitter; controller: AbortController; stderr: Capture; exits: [number, string][]; remove: () => void } {
  const emitter = new EventEmitter();
  const controller = new AbortController();
  const stderr = new Capture();
  const exits: [number, string][] = [];
  const remove = stopOnSignals({
    controller,
    stderr,
    exit: (code, signal) => exits.push([code, signal]),
    process: emitter as unknown as Pick<NodeJS.Process, "on" | "off">,
  });
  return { emitter, controller, stderr, exits, remove };
}

describe("stopOnSignals", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)("%s aborts the one signal with an InterruptedError and prints one line; a second exits", (name, code) => {
    const { emitter, controller, stderr, exits, remove } = setUp();
    emitter.emit(name);
    expect(controller.signal.aborted).toBe(true);
    expect(isInterruptedError(controller.signal.reason)).toBe(true);
    expect(controller.signal.reason).toMatchObject({ code: "INTERRUPTED", signalName: name, exitCode: code });
    expect(stderr.text).toBe(`ocf-sync: ${name} received: stopping and removing this run's temporary files (send it again to quit at once)\n`);
    expect(exits).toEqual([]);
    emitter.emit("SIGINT");
    expect(exits).toEqual([[130, "SIGINT"]]);
    expect(stderr.text.split("\n").filter((l) => l !== "")).toHaveLength(1);
    remove();
    expect(emitter.listenerCount("SIGINT") + emitter.listenerCount("SIGTERM")).toBe(0);
  });

  it("says what to do next after the line where the command has a way to go on", () => {
    const emitter = new EventEmitter();
    const stderr = new Capture();
    stopOnSignals({ controller: new AbortController(), stderr, exit: () => {}, process: emitter as unknown as Pick<NodeJS.Process, "on" | "off">, hint: afterStopHint("export") });
    emitter.emit("SIGINT");
    expect(stderr.text).toBe(
      "ocf-sync: SIGINT received: stopping and removing this run's temporary files (send it again to quit at once); to go on later, run the same command with --resume (packages written stay)\n",
    );
    expect(afterStopHint("sync")).toContain("the next sync goes on");
    expect(afterStopHint("validate")).toBeUndefined();
  });
});
