import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { launchCard } from "../../test/support/account-template-fixtures.ts";
import { provisionAccount, startService } from "../../test/support/service-process.ts";

/**
 * The worked example of docs/account-templates.md, run against the real service: the body of
 * its `POST /api/templates` (a logo of our own drawing), then its `POST /api/generate` with a
 * portrait (NASA's Eileen Collins, public domain, test/fixtures/tryon), and the result saved as
 * docs/template-example.png. Usage: node examples/custom-template/make-picture.ts
 */
const say = (...parts: ReadonlyArray<unknown>) => process.stdout.write(`${parts.join(" ")}\n`);
const root = path.resolve(import.meta.dirname, "../..");
const logo = await sharp(
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="240" height="160">
    <rect width="240" height="160" rx="24" fill="#ffcc00"/><path d="M120 28 L150 118 L120 100 L90 118 Z" fill="#0b1f3a"/></svg>`),
)
  .png()
  .toBuffer();
const photo = fs.readFileSync(path.join(root, "test/fixtures/tryon/astronaut.png"));

const service = await startService();
try {
  const key = (await provisionAccount(service.env, "pro")).keys[0]!.key;
  const created = await service.client.request("POST", "/api/templates", {
    key,
    body: launchCard("launch-card", logo.toString("base64")),
  });
  say("POST /api/templates", created.status, JSON.stringify({ id: created.json.data?.id, version: created.json.data?.version }));
  const generated = await service.client.request("POST", "/api/generate", {
    key,
    body: { templateType: "custom", template: "launch-card", image: photo.toString("base64"), text: { title: "Launch day: our new API is here" } },
  });
  const { resultUrl, format, width, height, templateVersion } = generated.json.data;
  say("POST /api/generate", generated.status, JSON.stringify({ format, width, height, templateVersion }));
  const picture = await service.client.request("GET", resultUrl as string);
  fs.writeFileSync(path.join(root, "docs/template-example.png"), picture.body);
  say("docs/template-example.png", picture.status, picture.body.length, "bytes");
} finally {
  await service.stop();
}
