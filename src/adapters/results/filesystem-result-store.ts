import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Effect, Layer, Option } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { ResultStore, type ResultStoreShape, type StoredResult } from "../../ports/result-store.ts";
import { isSafeResultId } from "./result-id.ts";

export interface FilesystemResultStoreOptions {
  /** Where results live, e.g. `${DATA_DIR}/results`; created if missing. */
  readonly directory: string;
}

/**
 * One file per result: a JSON header line (content type, expiry), then the bytes. Written to a
 * temporary name and renamed, so a reader sees a whole result or none, and there is never a
 * payload without its metadata. Files sit in 256 subdirectories named by the id's first two
 * characters, so no directory grows huge. A variant is a file of its own beside its result,
 * `<id>.<format>.result` (ids hold no "."), with the result's expiry: the sweep deletes both.
 */
interface Header {
  readonly contentType: string;
  readonly expiresAt: string;
}

const SUFFIX = ".result";
const TEMP = ".tmp";
/** A temporary file this old was left by a crash mid-write. */
const STALE_TEMP_MS = 60 * 60 * 1000;
/** Enough to hold any header: content types are short. */
const HEADER_MAX = 1024;

const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: "result-store", cause });

const io = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: unavailable });

const isMissing = (cause: unknown) => (cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT";

const parse = (file: Buffer): { header: Header; body: Buffer } | undefined => {
  const newline = file.indexOf(0x0a);
  if (newline < 0) return undefined;
  const header = JSON.parse(file.subarray(0, newline).toString("utf8")) as Header;
  return { header, body: file.subarray(newline + 1) };
};

export const makeFilesystemResultStore = (options: FilesystemResultStoreOptions): ResultStoreShape => {
  const shard = (resultId: string) => join(options.directory, resultId.slice(0, 2).toLowerCase());

  const readHeader = async (path: string): Promise<Header | undefined> => {
    const handle = await open(path, "r");
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEADER_MAX), 0, HEADER_MAX, 0);
      return parse(buffer.subarray(0, bytesRead))?.header;
    } finally {
      await handle.close();
    }
  };

  const write = (resultId: string, name: string, { bytes, contentType, expiresAt }: StoredResult) => {
    if (!isSafeResultId(resultId)) return Effect.die(new Error(`unsafe result id ${JSON.stringify(resultId)}`));
    return io(async () => {
      const header: Header = { contentType, expiresAt: expiresAt.toISOString() };
      const target = join(shard(resultId), name + SUFFIX);
      const temp = `${target}.${randomUUID()}${TEMP}`;
      await mkdir(shard(resultId), { recursive: true });
      await writeFile(temp, Buffer.concat([Buffer.from(JSON.stringify(header) + "\n", "utf8"), bytes]), { flag: "wx" });
      await rename(temp, target);
    });
  };

  const read = (resultId: string, name: string, now: Date) => {
    if (!isSafeResultId(resultId)) return Effect.succeed(Option.none());
    return io(async (): Promise<Option.Option<StoredResult>> => {
      let file: Buffer;
      try {
        file = await readFile(join(shard(resultId), name + SUFFIX));
      } catch (cause) {
        if (isMissing(cause)) return Option.none();
        throw cause;
      }
      const parsed = parse(file);
      if (!parsed) return Option.none();
      const expiresAt = new Date(parsed.header.expiresAt);
      if (expiresAt <= now) return Option.none();
      return Option.some({ bytes: new Uint8Array(parsed.body), contentType: parsed.header.contentType, expiresAt });
    });
  };

  return {
    put: (result) => write(result.resultId, result.resultId, result),
    get: (resultId, now) => read(resultId, resultId, now),
    putVariant: (variant) => write(variant.resultId, `${variant.resultId}.${variant.format}`, variant),
    getVariant: (resultId, format, now) => read(resultId, `${resultId}.${format}`, now),

    deleteExpired: (now) =>
      io(async () => {
        let deleted = 0;
        const shards = await readdir(options.directory, { withFileTypes: true }).catch((cause: unknown) => {
          if (isMissing(cause)) return [];
          throw cause;
        });
        for (const dir of shards.filter((entry) => entry.isDirectory())) {
          const directory = join(options.directory, dir.name);
          for (const name of await readdir(directory)) {
            const path = join(directory, name);
            // Another deleter, or a put replacing the file, may win the race: a vanished file is no error.
            try {
              if (name.endsWith(SUFFIX)) {
                const header = await readHeader(path);
                if (header && new Date(header.expiresAt) <= now) {
                  await rm(path);
                  deleted += 1;
                }
              } else if (name.endsWith(TEMP) && now.getTime() - (await stat(path)).mtimeMs > STALE_TEMP_MS) {
                await rm(path);
              }
            } catch (cause) {
              if (!isMissing(cause)) throw cause;
            }
          }
        }
        return deleted;
      }),
  };
};

export const filesystemResultStoreLayer = (options: FilesystemResultStoreOptions) =>
  Layer.effect(ResultStore)(
    Effect.as(
      io(() => mkdir(options.directory, { recursive: true })),
      makeFilesystemResultStore(options),
    ),
  );
