/**
 * A typed client of the API: types generated from the served OpenAPI document with
 * openapi-typescript (`npm run contract:types`), requests made with openapi-fetch.
 * Run: API_BASE_URL=https://127.0.0.1:8443 API_KEY=its_… IMAGE=photo.jpg NODE_EXTRA_CA_CERTS=data/tls/self-signed-cert.pem node examples/typed-client/client.ts
 */
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { paths } from "./api-types.ts";

const api = createClient<paths>({ baseUrl: `${process.env["API_BASE_URL"]}/api`, headers: { Authorization: `Bearer ${process.env["API_KEY"]}` } });

const profile = await api.GET("/user/profile");
if (profile.error) throw new Error(`${profile.error.error.code}: ${profile.error.error.message}`);
process.stdout.write(`plan ${profile.data.data.plan}, ${profile.data.data.quota.used} transformations used this month\n`);

const image = readFileSync(process.env["IMAGE"] ?? "").toString("base64");
const generated = await api.POST("/generate", {
  params: { header: { "idempotency-key": process.env["IDEMPOTENCY_KEY"] ?? crypto.randomUUID() } },
  body: { image, template: "instagram-square", templateType: "social" },
});
if (generated.error) throw new Error(`${generated.error.error.code}: ${generated.error.error.message}`);
// Without Prefer: respond-async the reply is the result itself; with it, a 202 naming the job (docs/jobs.md).
if (!("resultUrl" in generated.data.data)) throw new Error(`answered with job ${generated.data.data.jobId}`);
const { resultUrl, width, height, format } = generated.data.data; // every field required: no null checks
process.stdout.write(`${JSON.stringify({ resultUrl, width, height, format })}\n`);
