import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import sharp from "sharp";
import { photoJpeg } from "../../test/support/image-fixtures.ts";
import { provisionAccount, startService } from "../../test/support/service-process.ts";

/**
 * A picture of the Grafana dashboard where no Grafana can run: the real service under mixed
 * traffic, scraped by a real Prometheus (Debian's `prometheus`), each panel's own PromQL from
 * its-dashboard.json run through Prometheus's query API, and the series drawn as SVG in a page
 * laid out on the dashboard's grid, captured with headless Chromium. Grafana itself draws the
 * same queries differently (styling, legends); the numbers are the same.
 * Needs Debian's `prometheus` and `chromium`. Usage: npm run dashboard:preview -- [seconds of traffic, default 90] [png path]
 */
const trafficSeconds = Number(process.argv[2] ?? 90);
const output = path.resolve(process.argv[3] ?? path.join(import.meta.dirname, "dashboard-preview.png"));
const SCRAPE_SECONDS = 2;
const RATE_INTERVAL = "10s";

interface Target {
  readonly expr: string;
  readonly legendFormat: string;
}
interface Panel {
  readonly type: string;
  readonly title: string;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly fieldConfig?: { readonly defaults?: { readonly unit?: string } };
  readonly targets?: ReadonlyArray<Target>;
}
const dashboard = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "dashboards/its-dashboard.json"), "utf8")) as { title: string; panels: Panel[] };

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

// The service, and a Prometheus scraping its METRICS_PORT.
// A per-key rate of 10/s, so that only the deliberate bursts run out of it.
const service = await startService({
  // Two image slots and two waiting places: the floods of large images below queue and are refused in part.
  env: { METRICS_PORT: "0", OCR_WORKERS: "1", ENGINE_CONCURRENCY: "2", ENGINE_QUEUE_LENGTH: "2", RATE_LIMIT_BURST: "60", RATE_LIMIT_PER_MINUTE: "600" },
});
const listening = service
  .logs()
  .split("\n")
  .find((line) => line.includes('"msg":"listening"'));
const metricsPort = (JSON.parse(listening!) as { metricsPort: number }).metricsPort;
const promDir = fs.mkdtempSync(path.join(os.tmpdir(), "its-prometheus-"));
fs.writeFileSync(
  path.join(promDir, "prometheus.yml"),
  `global: { scrape_interval: ${SCRAPE_SECONDS}s }\nscrape_configs:\n  - job_name: image-transformation-api\n    static_configs: [{ targets: ["127.0.0.1:${metricsPort}"] }]\n`,
);
const promPort = await freePort();
const prometheus = spawn(
  "prometheus",
  [`--config.file=${path.join(promDir, "prometheus.yml")}`, `--storage.tsdb.path=${path.join(promDir, "data")}`, `--web.listen-address=127.0.0.1:${promPort}`],
  {
    stdio: "ignore",
  },
);
const promApi = `http://127.0.0.1:${promPort}/api/v1`;

// Mixed traffic: profiles, keys that fail, a key that runs out of rate, transformations that succeed and fail.
const { keys } = await provisionAccount(service.env, "pro", 4);
const [busy, steady, limited, flood] = keys.map((k) => k.key) as [string, string, string, string];
const photo = (await photoJpeg(800, 600)).toString("base64");
const large = (await photoJpeg(2400, 1800)).toString("base64");
const text = (
  await sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="120"><rect width="100%" height="100%" fill="white"/><text x="20" y="75" font-size="40" font-family="DejaVu Sans">Metrics for operators</text></svg>',
    ),
  )
    .png()
    .toBuffer()
).toString("base64");
const request = (method: string, url: string, key?: string, body?: unknown) =>
  service.client.request(method, url, key === undefined ? { body } : { key, body }).catch(() => undefined);
const started = Date.now();
const until = started + trafficSeconds * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const loop = async (every: number, act: (i: number) => Promise<unknown>) => {
  for (let i = 0; Date.now() < until; i++) {
    await act(i);
    await sleep(every);
  }
};
process.stdout.write(`traffic for ${trafficSeconds} s; Prometheus on ${promPort} scraping ${metricsPort}\n`);
await Promise.all([
  loop(150, () => request("GET", "/api/user/profile", steady)),
  loop(300, (i) =>
    request("POST", "/api/generate", busy, {
      image: i % 5 === 4 ? "bm90IGFuIGltYWdl" : photo,
      template: ["instagram-square", "grayscale", "small"][i % 3],
      templateType: ["social", "filter", "thumbnail"][i % 3],
    }),
  ),
  loop(2500, (i) => request("POST", "/api/ocr", busy, { image: text, language: i % 3 ? "eng" : "auto" })),
  loop(400, () => request("GET", "/api/user/profile", `its_${"k".repeat(12)}_${"x".repeat(43)}`)),
  loop(1500, () => request("GET", "/api/templates", limited)),
  loop(1000, (i) => (i % 2 ? request("GET", "/api/templates", limited) : request("GET", "/api/nothing-here"))),
  // A burst that drains a bucket: 429 RATE_LIMIT_EXCEEDED.
  loop(20_000, async () => Promise.all(Array.from({ length: 90 }, () => request("GET", "/api/user/profile", limited)))),
  // Every 20 s (5 s of flood, then 15 s of rest), five clients sending large images back to back: the image engine's queue
  // fills (its_engine_queue_depth) and the rest is refused with 503 (admission refusals).
  loop(15_000, async () => {
    const floodUntil = Math.min(until, Date.now() + 5000);
    const client = async () => {
      while (Date.now() < floodUntil) {
        await request("POST", "/api/generate", flood, { image: large, template: "grayscale", templateType: "filter" });
        await sleep(100);
      }
    };
    await Promise.all(Array.from({ length: 5 }, client));
  }),
]);
await sleep(3 * SCRAPE_SECONDS * 1000);
const end = Date.now();

// Every panel's queries over the traffic window.
interface Series {
  readonly label: string;
  readonly points: ReadonlyArray<readonly [number, number]>;
}
const legend = (format: string, labels: Record<string, string>) => format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => labels[name] ?? "");
const queryRange = async (target: Target): Promise<Series[]> => {
  const expr = target.expr.replaceAll("$__rate_interval", RATE_INTERVAL).replaceAll("$instance", ".*");
  const params = new URLSearchParams({ query: expr, start: String(started / 1000), end: String(end / 1000), step: String(SCRAPE_SECONDS) });
  const reply = (await (await fetch(`${promApi}/query_range?${params}`)).json()) as {
    status: string;
    error?: string;
    data: { result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
  };
  if (reply.status !== "success") throw new Error(`${expr}: ${reply.error}`);
  return reply.data.result.map((r) => ({
    label: legend(target.legendFormat, r.metric),
    points: r.values.map(([t, v]) => [t, Number(v)] as const).filter(([, v]) => Number.isFinite(v)),
  }));
};
const panels = await Promise.all(
  dashboard.panels.map(async (panel) => ({
    panel,
    series: panel.type === "timeseries" ? (await Promise.all((panel.targets ?? []).map(queryRange))).flat() : [],
  })),
);
prometheus.kill();
await service.stop();

// The page: the dashboard's 24-column grid, one SVG chart per panel.
const COLUMN = 60;
const ROW = 34;
const COLORS = ["#73bf69", "#f2cc0c", "#5794f2", "#ff9830", "#f2495c", "#b877d9", "#8ab8ff", "#ffb357", "#96d98d", "#ca95e5"];
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
const formatValue = (value: number, unit: string | undefined): string => {
  const fixed = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  if (unit === "s") return value >= 1 ? `${fixed(value)} s` : value >= 0.001 ? `${fixed(value * 1000)} ms` : `${fixed(value * 1e6)} µs`;
  if (unit === "bytes") return `${fixed(value / 2 ** 20)} MiB`;
  if (unit === "percentunit") return `${fixed(value * 100)} %`;
  if (unit === "reqps") return `${fixed(value)} req/s`;
  if (unit === "ops") return `${fixed(value)} /s`;
  return fixed(value);
};
const chart = (panel: Panel, series: ReadonlyArray<Series>) => {
  const width = panel.gridPos.w * COLUMN - 16;
  const legendRows = Math.ceil(series.length / Math.max(1, Math.floor(width / 190)));
  const height = panel.gridPos.h * ROW - 40 - legendRows * 16;
  const left = 64;
  const plotWidth = width - left - 8;
  const values = series.flatMap((s) => s.points.map(([, v]) => v));
  // A series that stays at 0 gets a 0..1 axis, not five ticks that all read 0.
  const highest = Math.max(0, ...values);
  const max = highest > 0 ? highest * 1.1 : 1;
  const x = (t: number) => left + ((t * 1000 - started) / (end - started)) * plotWidth;
  const y = (v: number) => 8 + (1 - v / max) * (height - 28);
  const unit = panel.fieldConfig?.defaults?.unit;
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (f) =>
        `<line x1="${left}" x2="${width - 8}" y1="${y(max * f)}" y2="${y(max * f)}" class="grid"/><text x="${left - 6}" y="${y(max * f) + 4}" class="axis" text-anchor="end">${escape(formatValue(max * f, unit))}</text>`,
    )
    .join("");
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const t = started + f * (end - started);
      return `<text x="${left + f * plotWidth}" y="${height - 6}" class="axis" text-anchor="middle">${new Date(t).toISOString().slice(11, 19)}</text>`;
    })
    .join("");
  // A series is broken where Prometheus returned no point (as Grafana draws it).
  const segments = (points: Series["points"]) =>
    points.reduce<Array<Array<readonly [number, number]>>>((all, point, i) => {
      if (i === 0 || point[0] - points[i - 1]![0] > SCRAPE_SECONDS * 1.5) all.push([]);
      all.at(-1)!.push(point);
      return all;
    }, []);
  const lines = series
    .flatMap((s, i) =>
      segments(s.points).map(
        (segment) =>
          `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.6" points="${segment.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>`,
      ),
    )
    .join("");
  const legendItems = series
    .map((s, i) => `<span class="key"><i style="background:${COLORS[i % COLORS.length]}"></i>${escape(s.label || "value")}</span>`)
    .join("");
  const body =
    series.length === 0
      ? `<div class="empty">No data</div>`
      : `<svg width="${width}" height="${height}">${grid}${ticks}${lines}</svg><div class="legend">${legendItems}</div>`;
  return body;
};
const html = `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;background:#111217;color:#ccccdc;font:12px Inter,"DejaVu Sans",sans-serif}
header{padding:10px 16px;font-size:17px;color:#fff;border-bottom:1px solid #2a2d35}
header small{color:#8e8e9e;font-size:12px;margin-left:12px}
.grid-root{position:relative;margin:8px}
.panel{position:absolute;background:#181b1f;border:1px solid #2a2d35;border-radius:2px;box-sizing:border-box;padding:6px 8px;overflow:hidden}
.panel h3{margin:0 0 4px;font-size:13px;font-weight:500;color:#fff}
.row{position:absolute;font-size:15px;color:#fff;padding:6px 4px}
.grid{stroke:#2a2d35}.axis{fill:#8e8e9e;font-size:10px}
.legend{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:2px 8px;margin-top:2px;white-space:nowrap}.key i{display:inline-block;width:12px;height:3px;margin-right:4px;vertical-align:middle}
.empty{color:#8e8e9e;padding:20px}
</style></head><body><header>${escape(dashboard.title)}<small>rendered from Prometheus query_range with each panel's PromQL (${new Date(started).toISOString().slice(0, 19)}Z, ${trafficSeconds} s of mixed traffic); not Grafana's renderer</small></header>
<div class="grid-root" style="height:${Math.max(...dashboard.panels.map((p) => p.gridPos.y + p.gridPos.h)) * ROW}px">
${panels
  .map(({ panel, series }) => {
    const style = `left:${panel.gridPos.x * COLUMN}px;top:${panel.gridPos.y * ROW}px;width:${panel.gridPos.w * COLUMN - 6}px;height:${panel.gridPos.h * ROW - 6}px`;
    return panel.type === "row"
      ? `<div class="row" style="${style}">${escape(panel.title)}</div>`
      : `<div class="panel" style="${style}"><h3>${escape(panel.title)}</h3>${chart(panel, series)}</div>`;
  })
  .join("\n")}
</div></body></html>`;
const htmlPath = path.join(promDir, "dashboard-preview.html");
fs.writeFileSync(htmlPath, html);

const browser = await chromium.launch({
  executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 24 * COLUMN + 16, height: 900 } });
await page.goto(`file://${htmlPath}`);
await page.screenshot({ path: output, fullPage: true });
await browser.close();
fs.rmSync(promDir, { recursive: true, force: true });
process.stdout.write(`${output}\n${panels.map(({ panel, series }) => `${panel.title}: ${series.length} series`).join("\n")}\n`);
