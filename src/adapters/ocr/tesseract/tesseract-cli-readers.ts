import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { OcrLanguage } from "../../../ports/engines/ocr-engine.ts";
import type { TesseractCli } from "./tesseract-cli-models.ts";
import { parametersFor, type TesseractModel } from "./tesseract-language-data.ts";
import type { TesseractOrientation, TesseractOutput, TesseractReader, TesseractReaders, TesseractReadOptions } from "./tesseract-reader.ts";
import { tsvBlocks, tsvWordConfidence } from "./tesseract-tsv-page.ts";

/**
 * Readers backed by the native `tesseract` CLI: one process per call, the image on its standard
 * input, one thread each (`OMP_THREAD_LIMIT=1`: the engine's slots, not OpenMP, share the cores).
 * A process costs ~0.1 s to start and load its model, which a page's reading (seconds) hides;
 * in exchange it reads about twice as fast as Tesseract in WebAssembly (AVX2/AVX-512 against
 * 128-bit SIMD), holds no memory between calls, and is stopped for certain when its caller leaves.
 */
const outputLimitBytes = 64 * 2 ** 20;

class CliFailed extends Error {
  override readonly name = "CliFailed";
}

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export class TesseractCliReaders implements TesseractReaders {
  readonly imageFormat = "pnm";
  private readonly running = new Set<ChildProcess>();
  private closed = false;
  private readonly cli: TesseractCli;

  constructor(cli: TesseractCli) {
    this.cli = cli;
  }

  async withWorker<A>(model: TesseractModel, signal: AbortSignal, use: (reader: TesseractReader) => Promise<A>): Promise<A> {
    signal.throwIfAborted();
    if (this.closed) throw new CliFailed("the tesseract engine is closed");
    const codes: ReadonlyArray<OcrLanguage | "osd"> = model === "osd" ? ["osd"] : model;
    await this.cli.unpack(codes);
    try {
      return await use(this.reader(codes, { ...parametersFor(model) }, signal));
    } catch (error) {
      throw signal.aborted ? signal.reason : error;
    }
  }

  terminate(): Promise<void> {
    this.closed = true;
    for (const child of this.running) child.kill("SIGKILL");
    return Promise.resolve();
  }

  private reader(codes: ReadonlyArray<OcrLanguage | "osd">, parameters: Record<string, string>, signal: AbortSignal): TesseractReader {
    // Tesseract's diagnostics stay on the process's stderr, which only a failure's message quotes.
    const common = () => ["--tessdata-dir", this.cli.folder, "-l", codes.join("+")];
    const settings = () =>
      Object.entries(parameters).flatMap(([name, value]) => (name === "tessedit_pageseg_mode" ? ["--psm", value] : ["-c", `${name}=${value}`]));
    return {
      setParameters: (changed) => Promise.resolve(Object.assign(parameters, changed)),
      recognize: (image, options, output) => this.recognize(image, [...common(), "--oem", "1", ...settings()], options, output, signal),
      detect: async (image) => {
        const finished = await this.run(["stdin", "-", ...common(), "--oem", "0", "--psm", "0"], image, signal);
        return { data: orientationOf(finished) };
      },
    };
  }

  private async recognize(image: Buffer, args: ReadonlyArray<string>, options: TesseractReadOptions = {}, output: TesseractOutput = {}, signal: AbortSignal) {
    const folder = await mkdtemp(path.join(os.tmpdir(), "tesseract-read-"));
    try {
      const base = path.join(folder, "page");
      const dpi = options.user_defined_dpi === undefined ? [] : ["--dpi", options.user_defined_dpi];
      // The TSV always: the page's confidence is its words'.
      const create = ["tessedit_create_txt=1", "tessedit_create_tsv=1"];
      const finished = await this.run(["stdin", base, ...args, ...dpi, ...create.flatMap((setting) => ["-c", setting])], image, signal);
      if (finished.code !== 0) throw new CliFailed(`tesseract exited with ${finished.code}: ${finished.stderr.slice(-400)}`);
      const [text, tsv] = await Promise.all([readFile(`${base}.txt`, "utf8"), readFile(`${base}.tsv`, "utf8")]);
      const blocks = output.blocks === true ? tsvBlocks(tsv) : null;
      return { data: { text, confidence: tsvWordConfidence(tsv), blocks } };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  private run(args: ReadonlyArray<string>, input: Buffer, signal: AbortSignal): Promise<Finished> {
    return new Promise<Finished>((resolve, reject) => {
      const child = spawn(this.cli.command, args, {
        env: { ...process.env, OMP_THREAD_LIMIT: "1" },
        signal,
        killSignal: "SIGKILL",
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.running.add(child);
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let size = 0;
      const collect = (into: Buffer[]) => (chunk: Buffer) => {
        size += chunk.length;
        if (size > outputLimitBytes) child.kill("SIGKILL");
        else into.push(chunk);
      };
      child.stdout.on("data", collect(stdout));
      child.stderr.on("data", collect(stderr));
      // A process that dies before reading all its input closes the pipe: its exit says why, not EPIPE.
      child.stdin.on("error", () => undefined);
      child.stdin.end(input);
      child.once("error", (error) => {
        this.running.delete(child);
        reject(error);
      });
      child.once("close", (code) => {
        this.running.delete(child);
        resolve({ code, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") });
      });
    });
  }
}

const field = (text: string, name: string): number | null => {
  const value = new RegExp(`^${name}: (-?[\\d.]+)$`, "mu").exec(text)?.[1];
  return value === undefined ? null : Number(value);
};

/**
 * OSD's answer as tesseract.js gives it: `orientation_degrees` is the CLI's "Rotate" (the turn that
 * puts the page upright). A page with too little text is no failure but an answer of nothing.
 */
const orientationOf = ({ code, stdout, stderr }: Finished): TesseractOrientation => {
  const script = /^Script: (\S+)$/mu.exec(stdout)?.[1] ?? null;
  if (script === null) {
    if (code === 0 || /too few characters/iu.test(stderr))
      return { script: null, script_confidence: null, orientation_degrees: null, orientation_confidence: null };
    throw new CliFailed(`tesseract OSD exited with ${code}: ${stderr.slice(-400)}`);
  }
  return {
    script,
    script_confidence: field(stdout, "Script confidence"),
    orientation_degrees: field(stdout, "Rotate"),
    orientation_confidence: field(stdout, "Orientation confidence"),
  };
};
