import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { decodeRaw } from "../src/adapters/image/raw-decoding.ts";
import { loadSelfieSegmentation } from "../src/adapters/segmentation/selfie-segmentation-model.ts";
import { loadMoveNet } from "../src/adapters/tryon/movenet-pose.ts";
import { judgeParse, parseSignals } from "../src/adapters/tryon/parse-signals.ts";
import { checkPerson } from "../src/adapters/tryon/person-checks.ts";
import { WORKING_MAX_SIDE } from "../src/adapters/tryon/tryon-pipeline.ts";
import * as fixtures from "../test/fixtures/tryon/tryon-fixtures.ts";

/**
 * The person-parse signals (parse-signals.ts) and what the engine decides from them (a confidence,
 * or a 422 code), on every photo the try-on is tested with, mirrored, and crops of the same public
 * photos that cut off the head or the torso, or squeeze the body as a turn would: the figures
 * PARSE_LIMITS were chosen from. Run: npm run bench:tryon-parse [-- FOLDER], a folder of further
 * photos to read too (the shared photos of ordinary people: ../shared/people/photos).
 */
const here = new URL("../test/fixtures/", import.meta.url);
const grace = readFileSync(new URL("tryon/grace-hopper.jpg", here));
const camera = readFileSync(new URL("faces/camera.png", here));
const astro = fixtures.astronaut();
const crop = (bytes: Uint8Array, left: number, top: number, width: number, height: number) =>
  sharp(bytes).extract({ left, top, width, height }).png().toBuffer();
const mirror = (bytes: Uint8Array) => sharp(bytes).flop().png().toBuffer();

const photos: Array<[string, () => Promise<Uint8Array>]> = [
  ["astronaut 512", async () => astro],
  ["astronaut 768x1024", fixtures.astronautPortrait],
  ["grace hopper", async () => grace],
  ["cameraman", async () => camera],
  ["crossed-arm drawn", fixtures.crossedArmFigure],
  ["astronaut mirrored", () => mirror(astro)],
  ["grace mirrored", () => mirror(grace)],
  ["cameraman mirrored", () => mirror(camera)],
  ["headshot close (face-set)", () => sharp(astro).extract({ left: 100, top: 0, width: 280, height: 350 }).resize(840, 1050).jpeg({ quality: 90 }).toBuffer()],
  ["astronaut head only 0-200", () => crop(astro, 120, 0, 260, 200)],
  ["astronaut top 0-260", () => crop(astro, 0, 0, 512, 260)],
  ["astronaut top 0-300", () => crop(astro, 0, 0, 512, 300)],
  ["astronaut top 0-340", () => crop(astro, 0, 0, 512, 340)],
  ["grace top 0-330", () => crop(grace, 0, 0, 512, 330)],
  ["grace top 0-400", () => crop(grace, 0, 0, 512, 400)],
  ["astronaut face cut 200-", () => crop(astro, 0, 200, 512, 312)],
  ["astronaut face cut 150- (fixture)", fixtures.astronautFaceCut],
  ["grace face cut 230-", () => crop(grace, 0, 230, 512, 370)],
  ["camera face cut 120-", () => crop(camera, 0, 120, 512, 392)],
  ["astronaut left half", () => crop(astro, 0, 0, 256, 512)],
  [
    "astronaut + coffee over torso",
    async () =>
      sharp(astro)
        .composite([{ input: await sharp(fixtures.coffee()).resize(300, 200).toBuffer(), left: 110, top: 290 }])
        .png()
        .toBuffer(),
  ],
  ["astronaut squeezed 0.5 wide", () => sharp(astro).resize(256, 512, { fit: "fill" }).png().toBuffer()],
  ["two people", fixtures.twoPeople],
  ["astronaut top 0-220", () => crop(astro, 0, 0, 512, 220)],
  ["astronaut top 0-230 (fixture)", fixtures.astronautTorsoCut],
  ["astronaut top 0-240", () => crop(astro, 0, 0, 512, 240)],
  ["astronaut top 0-250", () => crop(astro, 0, 0, 512, 250)],
  ["astronaut squeezed 0.35", () => sharp(astro).resize(180, 512, { fit: "fill" }).png().toBuffer()],
  ["grace squeezed 0.5", () => sharp(grace).resize(256, 600, { fit: "fill" }).png().toBuffer()],
  ["camera squeezed 0.5", () => sharp(camera).resize(256, 512, { fit: "fill" }).png().toBuffer()],
];
const folder = process.argv[2];
if (folder !== undefined) {
  for (const name of readdirSync(folder).sort()) photos.push([name, async () => readFileSync(path.join(folder, name))]);
}

const [segmentation, pose] = await Promise.all([loadSelfieSegmentation(2), loadMoveNet(2)]);
for (const [name, make] of photos) {
  const image = await decodeRaw(await make(), false, WORKING_MAX_SIDE);
  const probabilities = await segmentation.probabilities(image);
  const check = await checkPerson(image, probabilities, pose);
  if (!check.usable) {
    console.log(`${name.padEnd(32)} ${check.code}`);
    continue;
  }
  const s = parseSignals(check.keypoints, check.torso, probabilities, image);
  const f = (v: number) => v.toFixed(2);
  const judged = judgeParse(s);
  console.log(
    `${name.padEnd(32)} sh ${f(s.shoulders)} el ${f(s.elbows)} hip ${f(s.hips)} face ${f(s.face)} frontal ${f(s.frontal)} turn ${f(s.headTurn)} inFrame ${f(s.inFrame)} torsoPerson ${f(s.torsoPerson)} -> ${judged.sure ? `confidence ${f(judged.confidence)}` : judged.code}`,
  );
}
