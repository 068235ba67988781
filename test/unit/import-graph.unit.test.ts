import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files.ts";

/**
 * The import graph of src/, every relative import (type-only and re-exports included) resolved to
 * its file. ESLint forbids the packages each layer may not use; this checks the project's own files.
 */
const graph = new Map(
  sourceFiles().map(({ file, text }) => [
    file,
    ts
      .preProcessFile(text, true, true)
      .importedFiles.map((imported) => imported.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => path.posix.normalize(path.posix.join(path.posix.dirname(file), name))),
  ]),
);

/**
 * Dependencies point inward: domain, then ports, then the application, then adapters; the
 * composition root (src/*.ts) and the command-line programs, which compose the service as main.ts
 * does, are outermost.
 */
const LAYERS = ["src/domain/", "src/ports/", "src/application/", "src/adapters/"] as const;
const depth = (file: string) => {
  const layer = LAYERS.findIndex((prefix) => file.startsWith(prefix));
  return layer < 0 || file.startsWith("src/adapters/cli/") ? LAYERS.length : layer;
};

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
const cycles = (edges: ReadonlyMap<string, ReadonlyArray<string>>): ReadonlyArray<ReadonlyArray<string>> => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: Array<string> = [];
  const onStack = new Set<string>();
  const found: Array<Array<string>> = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: Array<string> = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || edges.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
};

describe("the import graph of src/", () => {
  it("resolves every relative import to a file under src/", () => {
    const unresolved = [...graph].flatMap(([file, imports]) => imports.filter((target) => !graph.has(target)).map((target) => `${file} → ${target}`));
    expect(unresolved).toEqual([]);
  });

  it("has no import pointing outward", () => {
    const outward = [...graph].flatMap(([file, imports]) => imports.filter((target) => depth(target) > depth(file)).map((target) => `${file} → ${target}`));
    expect(outward).toEqual([]);
  });

  it("has no cycle", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("finds a cycle and an outward import when there is one", () => {
    const bad = new Map([
      ["src/domain/a.ts", ["src/domain/b.ts", "src/adapters/x.ts"]],
      ["src/domain/b.ts", ["src/domain/a.ts"]],
      ["src/adapters/x.ts", []],
    ]);
    expect(cycles(bad)).toEqual([["src/domain/a.ts", "src/domain/b.ts"]]);
    expect(depth("src/adapters/x.ts")).toBeGreaterThan(depth("src/domain/a.ts"));
    expect(depth("src/adapters/cli/itsctl.ts")).toBe(depth("src/composition.ts"));
  });
});
