/**
 * A document through POST /api/ocr against the native pipeline on the same machine, in one run:
 * a 20-page A4 text PDF at 300 dpi (~10 MB, bench/support/a4-text-document.ts), read
 *
 * - natively: `pdftoppm -r 300 -gray` draws a page and the `tesseract` CLI reads it (`-l eng`,
 *   OMP_THREAD_LIMIT=1 as Tesseract advises for parallel processes), one page per core at a
 *   time, each core drawing its next page as soon as it has read one (the fastest way to run the
 *   two tools: drawing page after page first left the cores idle meanwhile);
 * - by the service: the real process over HTTPS (test/support/service-process.ts, default
 *   settings: OCR_WORKERS = the cores), one synchronous request with `language: eng`.
 *
 * Reports each side's wall time, pace = native wall / service wall, and the CER of each against
 * the text drawn; and each side's CPU time (the service process's threads, the tools' processes),
 * whose ratio is where the pace tends when every core is busy, and which load from elsewhere on a
 * shared machine moves less than the wall clock. Rounds alternate which side goes first, after one untimed reading by each (the
 * service starts its second worker, the OS caches the CLI's files). Needs Debian packages
 * tesseract-ocr, tesseract-ocr-eng, poppler-utils and fonts-dejavu-core
 * (tools/system-packages/ensure.sh). No network.
 *
 *   npm run bench:ocr-document [rounds]      (default 2)
 *
 * Goal: pace >= 0.8, the service's CER no worse than native + 0.5 points.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type CerCount, cerCount, cerPercent } from "../test/support/character-error-rate.ts";
import { provisionAccount, startService } from "../test/support/service-process.ts";
import { a4TextDocument } from "./support/a4-text-document.ts";

const run = promisify(execFile);
const rounds = Number(process.argv[2] ?? 2);
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

const service = await startService();
const { keys } = await provisionAccount(service.env, "enterprise");
const body = { image: Buffer.from(document.pdf).toString("base64"), language: "eng" };

const readByService = async (): Promise<Reading> => {
  const started = performance.now();
  const cpu = cpuOf(service.pid);
  const reply = await service.client.request("POST", "/api/ocr", { key: keys[0]!.key, body });
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = cpuOf(service.pid) - cpu;
  if (reply.status !== 200) throw new Error(`POST /api/ocr answered ${reply.status}: ${JSON.stringify(reply.json)}`);
  return { seconds, cpuSeconds, pages: (reply.json.data.pages as Array<{ text: string }>).map((page) => page.text) };
};

const counts = (reading: Reading): Array<CerCount> => document.truths.map((truth, index) => cerCount(reading.pages[index] ?? "", truth));
const sides = { native: [] as Array<Reading>, service: [] as Array<Reading> };
try {
  console.log(`${pageCount} A4 pages at 300 dpi, ${(document.pdf.length / 2 ** 20).toFixed(2)} MiB (JPEG quality ${document.jpegQuality}), ${cores} cores`);
  await readByService();
  await readNatively();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["native", "service"] as const) : (["service", "native"] as const);
    for (const side of order) {
      const reading = side === "native" ? await readNatively() : await readByService();
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
const pace = total(sides.native) / total(sides.service);
const cer = (readings: ReadonlyArray<Reading>) => cerPercent(readings.flatMap(counts));
const range = (readings: ReadonlyArray<Reading>) => readings.map((reading) => reading.seconds.toFixed(1)).join(", ");
const cpuTotal = (readings: ReadonlyArray<Reading>) => readings.reduce((sum, reading) => sum + reading.cpuSeconds, 0);
console.log(`\nnative wall  ${range(sides.native)} s   CER ${cer(sides.native).toFixed(2)} %`);
console.log(`service wall ${range(sides.service)} s   CER ${cer(sides.service).toFixed(2)} %`);
console.log(`pace (native wall / service wall, over ${rounds} rounds): ${pace.toFixed(2)}  goal >= 0.80: ${pace >= 0.8 ? "met" : "NOT met"}`);
// With every core busy on both sides, wall pace tends to this; load from elsewhere moves it less than the wall clock.
console.log(`CPU ratio (native CPU / service CPU): ${(cpuTotal(sides.native) / cpuTotal(sides.service)).toFixed(2)}`);
const gap = cer(sides.service) - cer(sides.native);
console.log(`CER service - native: ${gap.toFixed(2)} points  goal <= +0.50: ${gap <= 0.5 ? "met" : "NOT met"}`);
