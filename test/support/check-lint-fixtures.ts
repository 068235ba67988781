/**
 * The lint step's own check: ESLint, with the project's configuration, must report every line of
 * test/fixtures/lint/*.ts marked `// expect: RULE` with that rule, and nothing unmarked. So a rule
 * switched off or weakened in eslint.config.js fails `npm run lint`, not only a bad pattern in src.
 */
import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURES = path.join(ROOT, "test/fixtures/lint");

const expectedFindings = (file: string) =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, index) => {
      const marker = line.indexOf("// expect: ");
      return marker < 0 ? [] : [`${index + 1} ${line.slice(marker + "// expect: ".length).trim()}`];
    });

const eslint = new ESLint({ cwd: ROOT, ignore: false });
const files = fs
  .readdirSync(FIXTURES)
  .filter((name) => name.endsWith(".ts"))
  .map((name) => path.join(FIXTURES, name));
let failed = false;
for (const result of await eslint.lintFiles(files)) {
  const found = result.messages.map((message) => `${message.line} ${message.ruleId ?? message.message}`);
  const expected = expectedFindings(result.filePath);
  const missing = expected.filter((finding) => !found.includes(finding));
  const unexpected = found.filter((finding) => !expected.includes(finding));
  if (missing.length > 0 || unexpected.length > 0) {
    failed = true;
    console.error(`${path.relative(ROOT, result.filePath)}: lint did not report ${JSON.stringify(missing)}; reported unmarked ${JSON.stringify(unexpected)}`);
  }
}
if (failed) process.exit(1);
console.log(`lint fixtures: every marked finding reported in ${files.length} file(s)`);
