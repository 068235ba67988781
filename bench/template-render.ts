import sharp from "sharp";
import { grainyPhotoJpeg } from "../test/support/image-fixtures.ts";
import { provisionAccount, startService } from "../test/support/service-process.ts";

/**
 * Issue 27: one render of an account's template through the whole HTTPS API (POST /api/generate,
 * templateType custom) against the same composite made in-process with sharp directly (the
 * baseline), in one run, alternating, two requests in flight (the 2 cores of the target machine).
 * The template: 1200×630, a photo layer (cover, centred: `focus: "centre"`, so neither side looks for
 * faces), two text layers whose text fits at its maxSize (one Pango layout each on both sides), a
 * logo and a shape. Reports p50/p95 per side and the ratio of throughputs (HTTPS / in-process).
 * Usage: node bench/template-render.ts [renders per side per round, default 60]
 */
const perRound = Number(process.argv[2] ?? 60);
const CONCURRENCY = 2;
const ROUNDS = 2;

const logo = await sharp({ create: { width: 240, height: 160, channels: 4, background: "#ffcc00" } })
  .composite([{ input: Buffer.from('<svg width="240" height="160"><circle cx="120" cy="80" r="60" fill="#0b1f3a"/></svg>') }])
  .png()
  .toBuffer();
const photo = await grainyPhotoJpeg(1600, 1067);
const title = { box: { x: 640, y: 80, width: 520, height: 260 }, size: 72, text: "Launch day" };
const subtitle = { box: { x: 640, y: 360, width: 520, height: 120 }, size: 36, text: "Everything new this spring" };
const design = {
  name: "bench-card",
  canvas: { width: 1200, height: 630, background: "#0b1f3a", format: "png" },
  layers: [
    { type: "photo", box: { x: 0, y: 0, width: 600, height: 630 }, fit: "cover" },
    ...[
      ["title", title, 700],
      ["subtitle", subtitle, 400],
    ].map(([name, layer, weight]) => {
      const { box, size, text } = layer as typeof title;
      return { type: "text", name, box, font: "Noto Sans", weight, color: "#ffffff", maxSize: size, minSize: 12, align: "left", text };
    }),
    { type: "image", name: "logo", box: { x: 1040, y: 520, width: 120, height: 80 }, image: logo.toString("base64") },
    { type: "shape", box: { x: 620, y: 600, width: 560, height: 6 }, fill: "#ffcc00" },
  ],
};

/** The baseline: the same layers with sharp called directly, no checks, no store, no HTTP. */
const inProcess = async () => {
  const text = (layer: typeof title, weight: number) =>
    sharp({
      text: {
        text: `<span foreground="#ffffff" font_weight="${weight}">${layer.text}</span>`,
        font: `Noto Sans ${layer.size}px`,
        width: layer.box.width,
        dpi: 72,
        rgba: true,
        wrap: "word-char",
      },
    })
      .png()
      .toBuffer();
  const [photoLayer, titleLayer, subtitleLayer, logoLayer] = await Promise.all([
    sharp(photo).resize(600, 630, { fit: "cover", position: "centre" }).png().toBuffer(),
    text(title, 700),
    text(subtitle, 400),
    sharp(logo).resize(120, 80, { fit: "inside" }).png().toBuffer(),
  ]);
  const bar = await sharp({ create: { width: 560, height: 6, channels: 4, background: "#ffcc00" } })
    .png()
    .toBuffer();
  return sharp({ create: { width: 1200, height: 630, channels: 4, background: "#0b1f3a" } })
    .composite([
      { input: photoLayer, left: 0, top: 0 },
      { input: titleLayer, left: title.box.x, top: title.box.y },
      { input: subtitleLayer, left: subtitle.box.x, top: subtitle.box.y },
      { input: logoLayer, left: 1040, top: 520 },
      { input: bar, left: 620, top: 600 },
    ])
    .png()
    .toBuffer();
};

const service = await startService({ env: { RATE_LIMIT_BURST: "100000000", RATE_LIMIT_PER_MINUTE: "100000000" } });
const { keys } = await provisionAccount(service.env, "enterprise");
const key = keys[0]!.key;
const made = await service.client.request("POST", "/api/templates", { key, body: design });
if (made.status !== 201) throw new Error(`template refused: ${made.status} ${JSON.stringify(made.json)}`);
const call = { templateType: "custom", template: "bench-card", image: photo.toString("base64"), focus: "centre", text: { title: title.text } };
const viaHttps = async () => {
  const reply = await service.client.request("POST", "/api/generate", { key, body: call });
  if (reply.status !== 200) throw new Error(`generate: ${reply.status} ${JSON.stringify(reply.json)}`);
};

/** `count` renders, CONCURRENCY at a time: each one's latency and the wall time of all. */
const measure = async (render: () => Promise<unknown>, count: number) => {
  const latencies: Array<number> = [];
  let left = count;
  const started = performance.now();
  const worker = async () => {
    while (left-- > 0) {
      const begun = performance.now();
      await render();
      latencies.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { latencies, elapsedMs: performance.now() - started };
};

await measure(inProcess, 6);
await measure(viaHttps, 6);
const sides = {
  "in-process sharp": { latencies: [] as Array<number>, elapsedMs: 0 },
  "HTTPS POST /api/generate": { latencies: [] as Array<number>, elapsedMs: 0 },
};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, render] of [
    ["in-process sharp", inProcess],
    ["HTTPS POST /api/generate", viaHttps],
  ] as const) {
    const { latencies, elapsedMs } = await measure(render, perRound);
    sides[name].latencies.push(...latencies);
    sides[name].elapsedMs += elapsedMs;
  }
}
await service.stop();

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
};
const perSecond = ({ latencies, elapsedMs }: { latencies: ReadonlyArray<number>; elapsedMs: number }) => (latencies.length * 1000) / elapsedMs;
console.log(`1200×630 template (photo 1600×1067 JPEG, 2 text layers, logo, shape), ${CONCURRENCY} in flight, ${ROUNDS} alternating rounds of ${perRound}`);
console.table(
  Object.entries(sides).map(([path, side]) => ({
    path,
    renders: side.latencies.length,
    "per s": Number(perSecond(side).toFixed(2)),
    "p50 ms": percentile(side.latencies, 0.5),
    "p95 ms": percentile(side.latencies, 0.95),
  })),
);
const ratio = perSecond(sides["HTTPS POST /api/generate"]) / perSecond(sides["in-process sharp"]);
const p95 = percentile(sides["HTTPS POST /api/generate"].latencies, 0.95);
console.log(`p95 through the service ${p95} ms (goal ≤ 300); ratio HTTPS/in-process = ${ratio.toFixed(3)} (goal ≥ 0.8)`);
