import fs from "node:fs/promises";
import path from "node:path";
import { Effect, Layer, Option } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { ResultStore, type ResultStoreShape } from "../../ports/result-store.ts";

/**
 * Results as files under one directory: `<id>.bin` with the bytes and `<id>.json` with the
 * content type and expiry. Ids are checked against a strict pattern, so no path can escape.
 * The bytes are written under a temporary name and renamed, so a reader never sees half a file.
 */
const SAFE_ID = /^[A-Za-z0-9-]{8,64}$/;

interface Meta {
  readonly contentType: string;
  readonly expiresAt: string;
}

const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: "result store (filesystem)", cause });

export const makeFilesystemResultStore = async (directory: string): Promise<ResultStoreShape> => {
  await fs.mkdir(directory, { recursive: true });
  const file = (resultId: string, ext: "bin" | "json") => path.join(directory, `${resultId}.${ext}`);
  const readMeta = async (resultId: string): Promise<Meta | undefined> => {
    try {
      return JSON.parse(await fs.readFile(file(resultId, "json"), "utf8")) as Meta;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  };
  const remove = (resultId: string) => Promise.all([fs.rm(file(resultId, "bin"), { force: true }), fs.rm(file(resultId, "json"), { force: true })]);

  return {
    put: ({ resultId, bytes, contentType, expiresAt }) =>
      Effect.tryPromise({
        try: async () => {
          if (!SAFE_ID.test(resultId)) throw new RangeError(`unsafe result id ${resultId}`);
          const temporary = file(`${resultId}.tmp`, "bin");
          await fs.writeFile(temporary, bytes);
          await fs.rename(temporary, file(resultId, "bin"));
          await fs.writeFile(file(resultId, "json"), JSON.stringify({ contentType, expiresAt: expiresAt.toISOString() } satisfies Meta));
        },
        catch: unavailable,
      }),
    get: (resultId, now) =>
      Effect.tryPromise({
        try: async () => {
          if (!SAFE_ID.test(resultId)) return Option.none();
          const meta = await readMeta(resultId);
          if (!meta || Date.parse(meta.expiresAt) <= now.getTime()) return Option.none();
          const bytes = await fs.readFile(file(resultId, "bin"));
          return Option.some({ bytes: new Uint8Array(bytes), contentType: meta.contentType, expiresAt: new Date(meta.expiresAt) });
        },
        catch: unavailable,
      }),
    deleteExpired: (now) =>
      Effect.tryPromise({
        try: async () => {
          let deleted = 0;
          for (const name of await fs.readdir(directory)) {
            if (!name.endsWith(".json")) continue;
            const resultId = name.slice(0, -".json".length);
            const meta = await readMeta(resultId);
            if (meta && Date.parse(meta.expiresAt) <= now.getTime()) {
              await remove(resultId);
              deleted++;
            }
          }
          return deleted;
        },
        catch: unavailable,
      }),
  };
};

export const filesystemResultStoreLayer = (options: { readonly directory: string }) =>
  Layer.effect(ResultStore)(Effect.tryPromise({ try: () => makeFilesystemResultStore(options.directory), catch: unavailable }));
