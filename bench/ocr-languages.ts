/**
 * The service's OCR in 34 languages against the native Debian `tesseract` CLI, in one run:
 * per language the character error rate of both, the first request in a language the service
 * has not loaded yet (cold) and the next one (warm), against the CLI's time for the same page;
 * the service's RSS when idle after start and at its peak over the run, against its idle budget.
 *
 *   npm run bench:ocr-languages
 *
 * Requests go over HTTPS to the real service process (OCR_WARM_LANGUAGES empty: every language
 * is cold at first). The CLI runs with OMP_THREAD_LIMIT=1, one page at a time, like the service's
 * single request. Needs Debian packages: tesseract-ocr, tesseract-ocr-<lang> for each language
 * (those missing are reported and skipped on the CLI side), fonts-dejavu-core, fonts-noto-cjk.
 * Pages: test/support/ocr-world-corpus.ts (Article 1 of the UDHR, rendered here).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { estimatedWorkerBytes } from "../src/adapters/ocr/tesseract/tesseract-language-data.ts";
import { cerCount, cerPercent } from "../test/support/character-error-rate.ts";
import { nativeLanguages } from "../test/support/ocr-native-cli.ts";
import { renderWorldPage, type WorldLanguage, worldLanguages, worldTexts } from "../test/support/ocr-world-corpus.ts";
import { peakRssMiB, provisionAccount, rssMiB, startService } from "../test/support/service-process.ts";

const run = promisify(execFile);
const debianName = (language: WorldLanguage) => language.replace("_", "-");

const idleBudgetMiB = 256;
const native = await nativeLanguages();
const folder = await mkdtemp(path.join(os.tmpdir(), "ocr-languages-"));
const service = await startService({
  env: { OCR_WARM_LANGUAGES: "", OCR_IDLE_MEMORY_MB: String(idleBudgetMiB), RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "10000" },
});
try {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idleRss = rssMiB(service.pid);
  const { keys } = await provisionAccount(service.env, "enterprise");
  const key = keys[0]!.key;
  const rows: Array<Record<string, string | number>> = [];
  const totals = { serviceMs: 0, nativeMs: 0, serviceCer: [] as ReturnType<typeof cerCount>[], nativeCer: [] as ReturnType<typeof cerCount>[] };
  const coldMs: number[] = [];
  for (const language of worldLanguages) {
    const png = await renderWorldPage(language);
    const truth = worldTexts[language];
    const ask = async () => {
      const started = performance.now();
      const reply = await service.client.request("POST", "/api/ocr", { key, body: { image: Buffer.from(png).toString("base64"), language } });
      if (reply.status !== 200) throw new Error(`${language}: ${reply.status} ${JSON.stringify(reply.json)}`);
      return { ms: performance.now() - started, text: String(reply.json.data.text) };
    };
    const cold = await ask();
    const warm = await ask();
    coldMs.push(cold.ms);
    totals.serviceMs += warm.ms;
    const serviceCount = cerCount(warm.text, truth);
    totals.serviceCer.push(serviceCount);
    const row: Record<string, string | number> = {
      language,
      "cold ms": Math.round(cold.ms),
      "warm ms": Math.round(warm.ms),
      "service CER %": Number(cerPercent([serviceCount]).toFixed(1)),
    };
    if (native.has(language)) {
      const file = path.join(folder, `${language}.png`);
      await writeFile(file, png);
      const started = performance.now();
      const { stdout } = await run("tesseract", [file, "-", "-l", language], { env: { ...process.env, OMP_THREAD_LIMIT: "1" } });
      const nativeMs = performance.now() - started;
      const nativeCount = cerCount(stdout, truth);
      totals.nativeMs += nativeMs;
      totals.nativeCer.push(nativeCount);
      Object.assign(row, { "CLI ms": Math.round(nativeMs), "CLI CER %": Number(cerPercent([nativeCount]).toFixed(1)) });
    } else {
      Object.assign(row, { "CLI ms": `no tesseract-ocr-${debianName(language)}`, "CLI CER %": "" });
    }
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  const peakRss = peakRssMiB(service.pid);
  console.table(rows);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  console.log(
    `uptime: ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(" ")} (load 1/5/15 min; the machine is shared)`,
  );
  console.log(`languages: ${worldLanguages.length} (CLI: ${totals.nativeCer.length})`);
  console.log(
    `pooled CER: service ${cerPercent(totals.serviceCer).toFixed(2)} %, CLI ${cerPercent(totals.nativeCer).toFixed(2)} % (CLI languages only on its side)`,
  );
  console.log(
    `warm time per page, service / CLI (languages both read): ${(totals.serviceMs / worldLanguages.length).toFixed(0)} ms / ${(totals.nativeMs / Math.max(1, totals.nativeCer.length)).toFixed(0)} ms`,
  );
  console.log(`cold-language first request: median ${median(coldMs).toFixed(0)} ms, max ${Math.max(...coldMs).toFixed(0)} ms`);
  // The budget: the idle workers within OCR_IDLE_MEMORY_MB, and at most OCR_WORKERS (the cores) busy beside them.
  const largestWorkerMiB = Math.max(...(await Promise.all(worldLanguages.map((language) => estimatedWorkerBytes([language]))))) / 2 ** 20;
  const boundMiB = idleRss + idleBudgetMiB + os.availableParallelism() * largestWorkerMiB;
  console.log(
    `service RSS: idle after start ${idleRss.toFixed(0)} MiB (goal <= 400), peak over the run ${peakRss.toFixed(0)} MiB; ` +
      `budget: idle + ${idleBudgetMiB} MiB of idle workers + ${os.availableParallelism()} busy × ${largestWorkerMiB.toFixed(0)} MiB = ${boundMiB.toFixed(0)} MiB: ` +
      (peakRss <= boundMiB ? "within" : "OVER"),
  );
} finally {
  await service.stop();
  await rm(folder, { recursive: true, force: true });
}
