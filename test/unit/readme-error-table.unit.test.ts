import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CATALOG, INTERNAL_ERROR } from "../../src/adapters/http/errors/error-catalog.ts";

/**
 * The error table of docs/api.md (once the README's) against the error catalog: every status and code the service can answer
 * is listed, and nothing else. A domain rule's own code (409) is the catalog's open entry.
 */
const README = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/api.md"), "utf8");

const tableRows = (): ReadonlyArray<{ readonly status: number; readonly codes: ReadonlyArray<string>; readonly open: boolean }> => {
  const start = README.indexOf("| HTTP | `error.code` | when |");
  const lines = README.slice(start).split("\n").slice(2);
  const rows = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith("|")),
  );
  return rows.map((row) => {
    const [status, code] = row
      .split("|")
      .slice(1, 3)
      .map((cell) => cell.trim());
    return { status: Number(status), codes: [...code!.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]!), open: code!.includes("domain rule") };
  });
};

describe("the error table of docs/api.md", () => {
  it("lists exactly the catalog's statuses and codes", () => {
    const rows = tableRows();
    expect(rows.length).toBeGreaterThan(10);
    const listed = new Set(rows.filter((row) => !row.open).flatMap((row) => row.codes.map((code) => `${row.status} ${code}`)));
    const entries = Object.values(ERROR_CATALOG);
    const cataloged = new Set([
      ...entries.flatMap((entry) => (entry.codes ?? []).map((code) => `${entry.status} ${code}`)),
      `${INTERNAL_ERROR.status} ${INTERNAL_ERROR.code}`,
    ]);
    expect([...listed].sort()).toEqual([...cataloged].sort());
    const openStatuses = entries.filter((entry) => entry.codes === undefined).map((entry) => entry.status);
    expect(rows.filter((row) => row.open).map((row) => row.status)).toEqual(openStatuses);
  });
});
