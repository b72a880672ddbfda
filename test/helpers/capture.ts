/** In-memory stand-ins for stdout/stderr, to run CLI commands in-process and read what they printed. */
import { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { CliIo } from "../../src/cli/io.js";

export class Capture extends Writable {
  text = "";
  isTTY = false;
  /** Bytes are decoded as a stream: a character split across two writes is read whole. */
  private readonly decoder = new StringDecoder("utf8");
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.text += typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    callback();
  }
}

export function captureIo(cwd: string, env: Record<string, string | undefined> = {}, signal?: AbortSignal): CliIo & { stdout: Capture; stderr: Capture } {
  return { stdout: new Capture(), stderr: new Capture(), env, cwd, ...(signal === undefined ? {} : { signal }) };
}
