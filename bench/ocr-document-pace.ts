/**
 * A document through POST /api/ocr against the native pipeline on the same machine, in one run:
 * a 20-page A4 text PDF at 300 dpi (~10 MB, test/support/a4-text-document.ts), read
 *
 * - natively: `pdftoppm -r 300 -gray` draws a page and the `tesseract` CLI reads it (`-l eng`,
 *   OMP_THREAD_LIMIT=1 as Tesseract advises for parallel processes), one page per core at a
 *   time, each core drawing its next page as soon as it has read one (the fastest way to run the
 *   two tools: drawing page after page first left the cores idle meanwhile);
 * - by the service: the real process over HTTPS (test/support/service-process.ts, default
 *   settings: OCR_WORKERS = the cores, the OCR engine named on the command line), one synchronous
 *   request with `language: eng`, and the same asynchronously (`Prefer: respond-async`, the job
 *   polled every 500 ms until it has succeeded: timed from the POST to the poll that sees it done).
 *
 * Reports each side's wall time, pace = native wall / service wall, and the CER of each against
 * the text drawn; and each side's CPU time (the service process's threads and its finished
 * children, i.e. the native engine's `tesseract` processes; the tools' processes),
 * whose ratio is where the pace tends when every core is busy, and which load from elsewhere on a
 * shared machine moves less than the wall clock. Rounds alternate which side goes first, after one untimed reading by each (the
 * service starts its second worker, the OS caches the CLI's files). Needs Debian packages
 * tesseract-ocr, tesseract-ocr-eng, poppler-utils and fonts-dejavu-core
 * (tools/system-packages/ensure.sh). No network.
 *
 *   npm run bench:ocr-document [rounds] [engine] [models]
 *     rounds: default 2; engine: OCR_ENGINE (default tesseract); models: OCR_TESSERACT_MODELS
 *     (default packaged; `system` reads with the models the native side reads: the same work)
 *
 * Goal: pace >= 0.8, the service's CER no worse than native + 0.5 points.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { a4TextDocument } from "../test/support/a4-text-document.ts";
import { type CerCount, cerCount, cerPercent } from "../test/support/character-error-rate.ts";
import { provisionAccount, startService } from "../test/support/service-process.ts";

const run = promisify(execFile);
const rounds = Number(process.argv[2] ?? 2);
const engine = process.argv[3] ?? "tesseract";
const models = process.argv[4] ?? "packaged";
const cores = os.availableParallelism();

interface Reading {
  readonly seconds: number;
  /** CPU seconds spent on it (all threads or processes): on a shared machine steadier than the wall clock. */
  readonly cpuSeconds: number;
  readonly pages: ReadonlyArray<string>;
}

/** CPU seconds of a process from /proc (utime + stime, every thread), or of this process's finished children (cutime + cstime). */
const ticksPerSecond = 100;
const cpuOf = (pid: number | "self", children = false) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const at = children ? 13 : 11;
  return (Number(fields[at]) + Number(fields[at + 1])) / ticksPerSecond;
};

/** Runs `task` over `items`, `parallelism` at a time, in order of submission. */
const eachLimited = async <A>(items: ReadonlyArray<A>, parallelism: number, task: (item: A) => Promise<void>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallelism }, async () => {
      while (next < items.length) await task(items[next++] as A);
    }),
  );
};

const document = await a4TextDocument();
const folder = await mkdtemp(path.join(os.tmpdir(), "ocr-document-pace-"));
const pdfFile = path.join(folder, "document.pdf");
await writeFile(pdfFile, document.pdf);
const pageCount = document.truths.length;

const readNatively = async (): Promise<Reading> => {
  const pages: Array<string> = Array.from({ length: pageCount }, () => "");
  const started = performance.now();
  const cpu = cpuOf("self", true);
  await eachLimited(
    Array.from({ length: pageCount }, (_, index) => index + 1),
    cores,
    async (page) => {
      const image = path.join(folder, `page-${page}`);
      await run("pdftoppm", ["-r", "300", "-gray", "-f", String(page), "-l", String(page), "-singlefile", pdfFile, image]);
      const { stdout } = await run("tesseract", [`${image}.pgm`, "-", "-l", "eng"], {
        env: { ...process.env, OMP_THREAD_LIMIT: "1" },
        maxBuffer: 16 * 2 ** 20,
      });
      pages[page - 1] = stdout;
      await rm(`${image}.pgm`, { force: true });
    },
  );
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: cpuOf("self", true) - cpu, pages };
};

// The job is polled twice a second: past the plan's rate, which this measurement is not about.
const service = await startService({ env: { OCR_ENGINE: engine, OCR_TESSERACT_MODELS: models, RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "60000" } });
const { keys } = await provisionAccount(service.env, "enterprise");
const body = { image: Buffer.from(document.pdf).toString("base64"), language: "eng" };

const key = keys[0]!.key;
/** The service's CPU: its own threads and its children that have ended (the native engine's processes). */
const serviceCpu = () => cpuOf(service.pid) + cpuOf(service.pid, true);
const pagesOf = (data: { pages: Array<{ text: string }> }) => data.pages.map((page) => page.text);

/** Often enough for a reading of a minute; each poll is a request the service's CPU time counts. */
const pollMs = 500;

/** The document's reading as the synchronous call answers it, or as the job's result once it has succeeded. */
const readByService = async (respondAsync: boolean): Promise<Reading> => {
  const started = performance.now();
  const cpu = serviceCpu();
  const reply = await service.client.request("POST", "/api/ocr", { key, body, headers: respondAsync ? { Prefer: "respond-async" } : {} });
  if (reply.status !== (respondAsync ? 202 : 200)) throw new Error(`POST /api/ocr answered ${reply.status}: ${JSON.stringify(reply.json)}`);
  let data = reply.json.data;
  while (respondAsync && data.status !== "succeeded") {
    if (data.status === "failed") throw new Error(`the job failed: ${JSON.stringify(data.error)}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    data = (await service.client.request("GET", String(reply.headers["location"]), { key })).json.data;
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, cpuSeconds: serviceCpu() - cpu, pages: pagesOf(respondAsync ? data.result : data) };
};

const counts = (reading: Reading): Array<CerCount> => document.truths.map((truth, index) => cerCount(reading.pages[index] ?? "", truth));
const sides = { native: [] as Array<Reading>, service: [] as Array<Reading>, job: [] as Array<Reading> };
const readBy = { native: readNatively, service: () => readByService(false), job: () => readByService(true) };
try {
  console.log(
    `${pageCount} A4 pages at 300 dpi, ${(document.pdf.length / 2 ** 20).toFixed(2)} MiB (JPEG quality ${document.jpegQuality}), ${cores} cores, OCR_ENGINE=${engine} OCR_TESSERACT_MODELS=${models}`,
  );
  await readBy.service();
  await readBy.native();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["native", "service", "job"] as const) : (["job", "service", "native"] as const);
    for (const side of order) {
      const reading = await readBy[side]();
      sides[side].push(reading);
      const cer = cerPercent(counts(reading)).toFixed(2);
      console.log(
        `round ${round + 1} ${side.padEnd(7)} ${reading.seconds.toFixed(1)} s (CPU ${reading.cpuSeconds.toFixed(1)} s), CER ${cer} %, load ${os.loadavg()[0]!.toFixed(1)}`,
      );
    }
  }
} finally {
  await service.stop();
  await rm(folder, { recursive: true, force: true });
}

const total = (readings: ReadonlyArray<Reading>) => readings.reduce((sum, reading) => sum + reading.seconds, 0);
const cer = (readings: ReadonlyArray<Reading>) => cerPercent(readings.flatMap(counts));
const range = (readings: ReadonlyArray<Reading>) => readings.map((reading) => reading.seconds.toFixed(1)).join(", ");
const cpuTotal = (readings: ReadonlyArray<Reading>) => readings.reduce((sum, reading) => sum + reading.cpuSeconds, 0);
console.log(`\nnative wall  ${range(sides.native)} s   CER ${cer(sides.native).toFixed(2)} %`);
for (const side of ["service", "job"] as const) {
  const label = side === "service" ? "synchronous" : "asynchronous";
  const pace = total(sides.native) / total(sides[side]);
  console.log(`${label} wall ${range(sides[side])} s   CER ${cer(sides[side]).toFixed(2)} %`);
  console.log(`  pace (native wall / ${label} wall, over ${rounds} rounds): ${pace.toFixed(2)}  goal >= 0.80: ${pace >= 0.8 ? "met" : "NOT met"}`);
  // With every core busy on both sides, wall pace tends to this; load from elsewhere moves it less than the wall clock.
  console.log(`  CPU ratio (native CPU / service CPU): ${(cpuTotal(sides.native) / cpuTotal(sides[side])).toFixed(2)}`);
  const gap = cer(sides[side]) - cer(sides.native);
  console.log(`  CER ${label} - native: ${gap.toFixed(2)} points  goal <= +0.50: ${gap <= 0.5 ? "met" : "NOT met"}`);
}
