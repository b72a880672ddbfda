/**
 * The recipes of docs/batch.md run as written (issue 26, item 6): the Kubernetes Indexed Job, the AWS
 * Batch array job and the GitHub Actions matrix are read from the page's code blocks, and each shard
 * runs as a local process of the real CLI with the variables its engine sets, against a sample server
 * that enforces the published quota and requires the token. Then the page's `ocf-sync summarize` line
 * merges the run records. Only what a reader replaces anyway is replaced: the service's URL, the
 * mounted paths and the secret. A flag changed on the page changes what runs here.
 */
import { execFile } from "node:child_process";
import { chmod, cp, mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { beforeAll, afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { CLI_FROM_SOURCES, runCliProcess, type CliRun } from "../../helpers/cli-process.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

const PAGE = new URL("../../../docs/batch.md", import.meta.url);
const SERVICE = "https://api.carta.com";
const TOKEN = "Bt5tokenQw81zRk2";
const QUOTA = { perSecond: 10, perMinute: 300 };

type Json = Record<string, unknown>;

/** The parts of the page's Job that the test reads. */
interface KubernetesJob {
  metadata: { name: string };
  spec: {
    completionMode: string;
    completions: number;
    parallelism: number;
    backoffLimitPerIndex: number;
    podFailurePolicy: { rules: { action: string; onExitCodes?: { operator: string; values: number[] } }[] };
    template: {
      spec: {
        restartPolicy: string;
        containers: {
          command: string[];
          args: string[];
          env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } }[];
          volumeMounts: { name: string; mountPath: string }[];
        }[];
        volumes: { name: string; configMap?: { name: string }; persistentVolumeClaim?: { claimName: string } }[];
      };
    };
  };
}

/** The fenced code blocks of the page's section whose heading starts with `heading`, with their language. */
function codeBlocks(page: string, heading: string): { lang: string; body: string }[] {
  const section = page.split(/\n(?=## )/).find((part) => part.startsWith(`## ${heading}`));
  if (section === undefined) throw new Error(`docs/batch.md has no section "## ${heading}"`);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] ?? "", body: m[2] ?? "" }));
}

function yamlDocuments(body: string): Json[] {
  return parseAllDocuments(body).map((document) => {
    if (document.errors.length > 0) throw new Error(`invalid YAML in docs/batch.md: ${document.errors[0]?.message}`);
    return document.toJS() as Json;
  });
}

/** The one line of the section's shell blocks that starts with `start`. */
function shellLine(page: string, heading: string, start: string): string {
  const lines = codeBlocks(page, heading)
    .filter((block) => block.lang === "sh")
    .flatMap((block) => block.body.replace(/\\\n\s*/g, "").split("\n"))
    .filter((line) => line.startsWith(start));
  expect(lines, `one "${start}" line in "## ${heading}"`).toHaveLength(1);
  return lines[0]!;
}

/** Kubernetes' own expansion of `$(NAME)` in `value` and `args` ($$ escapes; an unknown name stays as written). */
function kubernetesExpand(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string | undefined) => (name === undefined ? "$" : (env[name] ?? whole)));
}

function sh(shell: readonly string[], script: string, options: { cwd: string; env: Record<string, string> }): Promise<CliRun> {
  return new Promise((done) => {
    execFile(shell[0]!, [...shell.slice(1), script], { cwd: options.cwd, env: options.env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}

const folder = temporaryFolder("ocf-sync-batch-");
let server: SampleServer;
let page: string;
let path: string;
beforeAll(async () => {
  server = await startSampleServer({ quota: QUOTA, token: TOKEN });
  page = await readFile(PAGE, "utf8");
  // `ocf-sync` on the PATH, as the recipes' images and runners have it: the CLI from the sources.
  const bin = join(folder(), "bin");
  await mkdir(bin);
  const quoted = [process.execPath, ...CLI_FROM_SOURCES].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(" ");
  await writeFile(join(bin, "ocf-sync"), `#!/bin/sh\nexec ${quoted} "$@"\n`);
  await chmod(join(bin, "ocf-sync"), 0o755);
  path = `${bin}${delimiter}${process.env.PATH ?? ""}`;
});
afterAll(async () => {
  await server.close();
});

const issuerList = (): string => `${server.issuers.join("\n")}\n`;

/**
 * What every recipe must give: each shard exited 0 and left a record of its shard of `count`, every
 * sample issuer was exported exactly once across them, the quota was never exceeded, and `summarize`
 * over the records reports 0 failed and exits 0.
 */
async function expectAllDone(exits: CliRun[], records: string[], count: number, summarize: () => Promise<CliRun>, rateLimitedBefore: number): Promise<void> {
  for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);
  expect(records).toHaveLength(count);
  const read = await Promise.all(records.map(async (file) => JSON.parse(await readFile(file, "utf8")) as { exitStatus: number; shard: { index: number; count: number } | null; issuers: { issuerId: string; status: string }[] }));
  expect(read.map((record) => record.shard?.count)).toEqual(read.map(() => count));
  expect(new Set(read.map((record) => record.shard?.index)).size).toBe(count);
  const exported = read.flatMap((record) => record.issuers.filter((issuer) => issuer.status === "ok").map((issuer) => issuer.issuerId));
  expect(exported.sort()).toEqual([...server.issuers].sort());
  expect(server.stats().rateLimited - rateLimitedBefore).toBe(0);

  const merged = await summarize();
  expect(merged.code, merged.stderr + merged.stdout).toBe(0);
  expect(merged.stdout).not.toContain("missing");
}

describe("docs/batch.md", () => {
  it("every YAML and JSON block parses", () => {
    const blocks = page.split(/\n(?=## )/).flatMap((section) => [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)]);
    const structured = blocks.filter((m) => m[1] === "yaml" || m[1] === "json");
    expect(structured.length).toBeGreaterThanOrEqual(3);
    for (const m of structured) {
      if (m[1] === "json") JSON.parse(m[2]!);
      else yamlDocuments(m[2]!);
    }
  });

  it("the Kubernetes Indexed Job: one pod per JOB_COMPLETION_INDEX with the manifest's env and args, retried only on 75", { timeout: 180_000 }, async () => {
    const manifests = codeBlocks(page, "Kubernetes").filter((b) => b.lang === "yaml").flatMap((b) => yamlDocuments(b.body));
    const job = manifests.find((m) => m.kind === "Job") as unknown as KubernetesJob;
    const spec = job.spec;
    expect(spec.completionMode).toBe("Indexed");
    expect(spec.parallelism).toBe(spec.completions);
    expect(spec.backoffLimitPerIndex).toBeGreaterThan(0);
    expect(spec.podFailurePolicy.rules.find((rule) => rule.onExitCodes !== undefined)).toMatchObject({ onExitCodes: { operator: "NotIn", values: [75] } });
    const pod = spec.template.spec;
    expect(pod.restartPolicy).toBe("Never");
    const container = pod.containers[0]!;
    expect(container.command).toEqual(["ocf-sync"]);

    // The volumes, on local folders: the ConfigMap's files (with the sample issuers) and the claim.
    const root = join(folder(), "kubernetes");
    const mounts = new Map<string, string>();
    for (const mount of container.volumeMounts) {
      const volume = pod.volumes.find((v) => v.name === mount.name)!;
      const local = join(root, mount.name);
      await mkdir(local, { recursive: true });
      if (volume.configMap !== undefined) {
        const configMap = manifests.find((m) => m.kind === "ConfigMap" && (m.metadata as { name: string }).name === volume.configMap!.name) as { data: Record<string, string> };
        for (const file of Object.keys(configMap.data)) await writeFile(join(local, file), issuerList());
      }
      mounts.set(mount.mountPath, local);
    }
    const local = (arg: string): string => [...mounts].reduce((text, [mountPath, dir]) => text.replaceAll(`${mountPath}/`, `${dir}/`), arg.replaceAll(SERVICE, server.url));

    const podEnv = (index: number): Record<string, string> => {
      // The Job controller adds JOB_COMPLETION_INDEX; the manifest's entries follow, in order.
      const env: Record<string, string> = { JOB_COMPLETION_INDEX: String(index) };
      for (const entry of container.env) {
        if (entry.value !== undefined) env[entry.name] = kubernetesExpand(entry.value, env);
        else if (entry.valueFrom?.secretKeyRef !== undefined) env[entry.name] = TOKEN;
        else if (entry.valueFrom?.fieldRef?.fieldPath === "metadata.labels['batch.kubernetes.io/job-name']") env[entry.name] = job.metadata.name;
        else throw new Error(`an env entry the test cannot give: ${JSON.stringify(entry)}`);
      }
      return env;
    };
    expect(podEnv(0).OCF_SYNC_SHARD_COUNT).toBe(String(spec.completions));

    const before = server.stats().rateLimited;
    const exits = await Promise.all(
      Array.from({ length: spec.completions }, (_, index) => {
        const env = podEnv(index);
        return runCliProcess(container.args.map((arg) => local(kubernetesExpand(arg, env))), { cwd: root, env });
      }),
    );
    const results = mounts.get("/results")!;
    const records = (await readdir(join(results, job.metadata.name))).filter((name) => name.endsWith(".json")).map((name) => join(results, job.metadata.name, name));
    const summarize = shellLine(page, "Kubernetes", "ocf-sync summarize ");
    await expectAllDone(exits, records, spec.completions, () => sh(["/bin/sh", "-c"], local(summarize), { cwd: root, env: { PATH: path } }), before);
  });

  it("the AWS Batch array job: one child per AWS_BATCH_JOB_ARRAY_INDEX running the job definition's command, retried only on 75", { timeout: 180_000 }, async () => {
    const definition = JSON.parse(codeBlocks(page, "AWS Batch").find((b) => b.lang === "json")!.body) as {
      retryStrategy: { evaluateOnExit: { onExitCode?: string; onReason?: string; action: string }[] };
      containerProperties: { command: string[]; secrets: { name: string }[]; mountPoints: { containerPath: string }[] };
    };
    const rules = definition.retryStrategy.evaluateOnExit;
    expect(rules.find((rule) => rule.onExitCode !== undefined)).toEqual({ onExitCode: "75", action: "RETRY" });
    expect(rules.at(-1)).toEqual({ onReason: "*", action: "EXIT" });
    const [shell, flag, script] = definition.containerProperties.command;
    expect([shell, flag]).toEqual(["sh", "-c"]);
    const submit = shellLine(page, "AWS Batch", "JOB_ID=$(aws batch submit-job ");
    const size = Number(/--array-properties size=(\d+)/.exec(submit)?.[1]);
    expect(size).toBeGreaterThan(1);

    const root = join(folder(), "batch");
    const results = join(root, "results");
    await mkdir(results, { recursive: true });
    await writeFile(join(results, "issuers.txt"), issuerList());
    const mountPath = definition.containerProperties.mountPoints[0]!.containerPath;
    const local = (text: string): string => text.replaceAll(`${mountPath}/`, `${results}/`).replaceAll(SERVICE, server.url);
    const jobId = "4e1c2b7a-0d6f-4b4e-9a55-2f0b8c1d3e5f";
    const secrets = Object.fromEntries(definition.containerProperties.secrets.map((secret) => [secret.name, TOKEN]));

    const before = server.stats().rateLimited;
    const exits = await Promise.all(
      Array.from({ length: size }, (_, index) =>
        sh(["/bin/sh", "-c"], local(script!), {
          cwd: root,
          env: { PATH: path, ...secrets, AWS_BATCH_JOB_ARRAY_INDEX: String(index), AWS_BATCH_JOB_ARRAY_SIZE: String(size), AWS_BATCH_JOB_ID: `${jobId}:${index}`, AWS_BATCH_JOB_ATTEMPT: "1" },
        }),
      ),
    );
    const records = (await readdir(join(results, jobId))).filter((name) => name.endsWith(".json")).map((name) => join(results, jobId, name));
    const summarize = shellLine(page, "AWS Batch", "ocf-sync summarize ");
    await expectAllDone(exits, records, size, () => sh(["/bin/sh", "-c"], local(summarize), { cwd: root, env: { PATH: path, JOB_ID: jobId } }), before);
  });

  it("the GitHub Actions matrix: one runner per matrix.shard running the step's script, the records merged by the summarize job", { timeout: 180_000 }, async () => {
    const workflow = yamlDocuments(codeBlocks(page, "GitHub Actions").find((b) => b.lang === "yaml")!.body)[0] as {
      jobs: Record<string, { needs?: string; if?: string; strategy?: { "fail-fast": boolean; matrix: { shard: number[] } }; steps: { uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, string | boolean> }[] }>;
    };
    const [exportName, exportJob] = Object.entries(workflow.jobs).find(([, job]) => job.strategy !== undefined)!;
    const shards = exportJob.strategy!.matrix.shard;
    expect(exportJob.strategy!["fail-fast"]).toBe(false);
    const summarizeJob = Object.values(workflow.jobs).find((job) => job.needs === exportName)!;
    expect(summarizeJob.if).toBe("always()");

    // GitHub's expressions that the recipe uses; any other one fails the test.
    const expand = (text: string, shard: number | undefined): string =>
      text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
        if (expression === "matrix.shard" && shard !== undefined) return String(shard);
        if (expression === "secrets.OCF_SYNC_TOKEN") return TOKEN;
        throw new Error(`an expression the test cannot give: ${expression}`);
      });
    const runSteps = (job: typeof exportJob): typeof exportJob.steps => job.steps.filter((step) => step.run?.includes("ocf-sync ") === true && !step.run.startsWith("npm "));
    const exportStep = runSteps(exportJob)[0]!;
    expect(exportStep.run).toContain("--shard ${{ matrix.shard }}/" + String(shards.length));
    // What `run:` does on ubuntu-latest: bash -e with pipefail, in the job's checkout.
    const bash = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"];
    const local = (text: string): string => text.replaceAll(SERVICE, server.url);

    const root = join(folder(), "github");
    const before = server.stats().rateLimited;
    const exits = await Promise.all(
      shards.map(async (shard) => {
        const workspace = join(root, `export-${shard}`);
        await mkdir(workspace, { recursive: true });
        await writeFile(join(workspace, "issuers.txt"), issuerList());
        const env = Object.fromEntries(Object.entries(exportStep.env ?? {}).map(([name, value]) => [name, expand(value, shard)]));
        return sh(bash, local(expand(exportStep.run!, shard)), { cwd: workspace, env: { PATH: path, ...env } });
      }),
    );

    // upload-artifact of each runner's run record, then download-artifact with merge-multiple in the summarize job.
    const upload = exportJob.steps.find((step) => step.uses?.startsWith("actions/upload-artifact@") === true && String(step.with?.name).startsWith("run-"))!;
    const download = summarizeJob.steps.find((step) => step.uses?.startsWith("actions/download-artifact@") === true)!;
    expect(download.with?.["merge-multiple"]).toBe(true);
    const pattern = new RegExp(`^${String(download.with?.pattern).replace(/[.+?^$()[\]{}|\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
    const summaryWorkspace = join(root, "summarize");
    const downloaded = join(summaryWorkspace, String(download.with?.path));
    await mkdir(downloaded, { recursive: true });
    for (const shard of shards) {
      expect(expand(String(upload.with?.name), shard)).toMatch(pattern);
      await cp(join(root, `export-${shard}`, String(upload.with?.path)), downloaded, { recursive: true });
    }
    const records = (await readdir(downloaded)).map((name) => join(downloaded, name));
    const summarizeStep = runSteps(summarizeJob)[0]!;
    expect(summarizeStep.run).toMatch(/^ocf-sync summarize /);
    await expectAllDone(exits, records, shards.length, () => sh(bash, expand(summarizeStep.run!, undefined), { cwd: summaryWorkspace, env: { PATH: path } }), before);
  });
});
