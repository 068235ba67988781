import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Option } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeFilesystemResultStore } from "../../src/adapters/results/filesystem-result-store.ts";

const T0 = new Date("2026-11-10T12:00:00.000Z");
const HOUR = 3_600_000;

/** What only the filesystem adapter promises beyond the contract: durability and a tidy directory. */
describe("FilesystemResultStore", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "fs-result-store-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const listAll = async (dir: string): Promise<Array<string>> =>
    (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));

  it("survives a restart: another instance on the same directory finds the result", async () => {
    const id = randomUUID();
    const expiresAt = new Date(T0.getTime() + HOUR);
    await Effect.runPromise(
      makeFilesystemResultStore({ directory: root }).put({ resultId: id, bytes: new Uint8Array([7, 8]), contentType: "image/jpeg", expiresAt }),
    );
    const found = await Effect.runPromise(makeFilesystemResultStore({ directory: root }).get(id, T0));
    expect(Option.getOrThrow(found)).toEqual({ bytes: new Uint8Array([7, 8]), contentType: "image/jpeg", expiresAt });
  });

  it("writes one file per result inside its directory and leaves no temporary files", async () => {
    const store = makeFilesystemResultStore({ directory: root });
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) await Effect.runPromise(store.put({ resultId: id, bytes: new Uint8Array(10), contentType: "image/png", expiresAt: T0 }));
    const files = await listAll(root);
    expect(files).toHaveLength(3);
    for (const file of files) expect(file.startsWith(root + "/")).toBe(true);
    expect(files.some((f) => f.endsWith(".tmp"))).toBe(false);
  });

  it("sweeps temporary files a crash left behind, once they are stale", async () => {
    const store = makeFilesystemResultStore({ directory: root });
    const id = randomUUID();
    await Effect.runPromise(store.put({ resultId: id, bytes: new Uint8Array(1), contentType: "image/png", expiresAt: new Date(Date.now() + HOUR) }));
    const [shard] = await readdir(root);
    const fresh = join(root, shard ?? "", `${id}.result.${randomUUID()}.tmp`);
    const stale = join(root, shard ?? "", `${id}.result.${randomUUID()}.tmp`);
    await writeFile(fresh, "partial");
    await writeFile(stale, "partial");
    const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
    await utimes(stale, twoHoursAgo, twoHoursAgo);
    expect(await Effect.runPromise(store.deleteExpired(new Date()))).toBe(0);
    const left = (await listAll(root)).map((f) => f.slice(root.length));
    expect(left.some((f) => f.endsWith(stale.slice(root.length)))).toBe(false);
    expect(left.some((f) => f.endsWith(fresh.slice(root.length)))).toBe(true);
    expect(Option.isSome(await Effect.runPromise(store.get(id, new Date())))).toBe(true);
  });

  it("reports an unusable directory as DependencyUnavailable", async () => {
    const file = join(root, "not-a-directory");
    await writeFile(file, "x");
    const store = makeFilesystemResultStore({ directory: file });
    const exit = await Effect.runPromiseExit(store.put({ resultId: randomUUID(), bytes: new Uint8Array(1), contentType: "image/png", expiresAt: T0 }));
    expect(exit._tag === "Failure" && exit.cause.reasons[0]?._tag === "Fail" && exit.cause.reasons[0].error._tag).toBe("DependencyUnavailable");
  });
});
