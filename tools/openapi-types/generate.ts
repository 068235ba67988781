import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openApiDocument } from "../../src/adapters/http/api/openapi-document.ts";

/**
 * Writes examples/typed-client/api-types.ts from the API's OpenAPI document with openapi-typescript,
 * which needs TypeScript 5's compiler API: it lives in this folder's own node_modules, beside the
 * project's TypeScript 6. The e2e suite checks the file against the document the service serves.
 */
const here = import.meta.dirname;
const target = path.resolve(here, "../../examples/typed-client/api-types.ts");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "its-openapi-"));
try {
  const source = path.join(dir, "openapi.json");
  fs.writeFileSync(source, JSON.stringify(openApiDocument("https://127.0.0.1:8443")));
  execFileSync(process.execPath, [path.join(here, "node_modules/openapi-typescript/bin/cli.js"), source, "--output", target], { stdio: "inherit" });
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
