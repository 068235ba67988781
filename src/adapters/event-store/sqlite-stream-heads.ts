import type { DatabaseSync } from "node:sqlite";

/**
 * What one connection knows of the streams it read or appended lately: a revision that no event
 * of the stream lies beyond. A read starting past it finds nothing, and is answered without a
 * query: most reads are a cached state asking for what came after it, and the answer is nearly
 * always nothing (every profile request asks it of its quota ledger). A query costs a read
 * transaction and its file locks, about a tenth of a keyed request's CPU under load.
 *
 * It holds while no other connection (another process, the CLI, another store in this process)
 * commits, which SQLite's data_version tells; that is asked once per turn of the event loop (the
 * same price as a query), and everything known is forgotten when it moved. A read is therefore as
 * fresh as that check, made at most one turn earlier (about a millisecond under load): another
 * process's commit in that moment is read on the next turn. Nothing is decided on such a state:
 * an append checks the stream's revision in its own write transaction, and one that loses the
 * race forgets the stream here before its command is decided again (command-handler.ts).
 */
export const sqliteStreamHeads = (db: DatabaseSync, capacity = 10_000) => {
  const dataVersion = db.prepare("PRAGMA data_version");
  const heads = new Map<string, number>();
  const versionNow = () => dataVersion.get()?.["data_version"];
  // What this connection knows from here on holds until the version moves.
  let version = versionNow();
  let checkedThisTurn = false;

  const forgetIfOthersCommitted = () => {
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    setImmediate(() => {
      checkedThisTurn = false;
    });
    const now = versionNow();
    if (now !== version) heads.clear();
    version = now;
  };

  const remember = (streamName: string, head: number) => {
    heads.delete(streamName);
    heads.set(streamName, head);
    if (heads.size > capacity) heads.delete(heads.keys().next().value!);
  };

  return {
    /** True when the stream is known to hold no event at `fromRevision` or after. */
    nothingFrom: (streamName: string, fromRevision: number): boolean => {
      forgetIfOthersCommitted();
      const head = heads.get(streamName);
      return head !== undefined && fromRevision > head;
    },
    /** A read from `fromRevision` returned events up to `lastRevision`, the head (undefined: none, so the head lies before). */
    read: (streamName: string, fromRevision: number, lastRevision: number | undefined) => {
      const known = heads.get(streamName);
      remember(streamName, lastRevision ?? Math.min(known ?? fromRevision - 1, fromRevision - 1));
    },
    /** This connection appended up to `head`. */
    appended: remember,
    /** What happened to the stream is unknown (an append failed). */
    forget: (streamName: string) => void heads.delete(streamName),
  };
};
