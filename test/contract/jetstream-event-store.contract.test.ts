import { jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Effect } from "effect";
import { jetStreamEventStoreLayer } from "../../src/adapters/event-store/jetstream-event-store.ts";
import { NATS_URL, testNamespace } from "../support/nats.ts";
import { eventStoreContract, eventStoreFaultsContract, instanceOf } from "./support/event-store-contract.ts";
import { skipUnlessServerAnswers } from "./support/server-answers.ts";

/** Runs `work` with a JetStream manager on its own connection. */
const withManager = async <A>(work: (manager: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<A>): Promise<A> => {
  const connection = await connect({ servers: NATS_URL });
  try {
    return await work(await jetstreamManager(connection));
  } finally {
    await connection.close();
  }
};

/**
 * A test's stream, made here as the store makes it but with deletes allowed, so that a hand can
 * replace a message with an edited copy (the NATS CLI's `stream rmm` and `publish`); dropped after.
 */
const storage = Effect.acquireRelease(
  Effect.promise(async () => {
    const stream = `EVENTS_${testNamespace()}`;
    await withManager((manager) => manager.streams.add({ name: stream, subjects: [`${stream}.>`], storage: StorageType.File, allow_direct: true }));
    return stream;
  }),
  (stream) => Effect.promise(() => withManager((manager) => manager.streams.delete(stream))),
).pipe(
  Effect.map((stream) => ({
    open: instanceOf(jetStreamEventStoreLayer({ servers: NATS_URL, stream, pollInterval: "10 millis" })),
    damageData: (streamName: string, revision: number) =>
      Effect.promise(() =>
        withManager(async (manager) => {
          const subject = `${stream}.${Buffer.from(streamName).toString("base64url")}`;
          const message = (await manager.streams.getMessage(stream, { last_by_subj: subject }))!;
          const batch = message.json<{ revision: number; events: Array<{ data: unknown }> }>();
          batch.events[revision - batch.revision]!.data = [1];
          await manager.streams.deleteMessage(stream, message.seq);
          await manager.jetstream().publish(subject, JSON.stringify(batch));
        }),
      ),
  })),
);

eventStoreContract({ name: "nats", skip: await skipUnlessServerAnswers("NATS", NATS_URL, 4222), storage });

// Nothing listens on port 1.
eventStoreFaultsContract({ name: "nats", unreachable: jetStreamEventStoreLayer({ servers: "nats://127.0.0.1:1", stream: "unreached" }) });
