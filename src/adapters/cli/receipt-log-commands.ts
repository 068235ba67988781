import type { Command } from "commander";
import { Effect } from "effect";
import { rebuildProjection } from "../../application/event-sourcing/projection-runner.ts";
import { checkReceiptLog } from "../../application/receipts/receipt-log-check.ts";
import { currentCheckpoint } from "../../application/receipts/receipts.ts";
import type { EventStore } from "../../ports/event-store.ts";
import { NoteSigner } from "../../ports/note-signer.ts";
import { ReceiptLog } from "../../ports/receipt-log.ts";
import type { Execute } from "./audit-commands.ts";

class ReceiptLogDiffers extends Error {}

/** `itsctl ledger log show|verify|rebuild`: the receipts log as customers see it, held against the store, made again from it. */
export const registerReceiptLogCommands = (ledger: Command, execute: Execute<EventStore | ReceiptLog | NoteSigner>) => {
  const log = ledger.command("log").description("the receipts log: every quota movement in a Merkle tree whose signed checkpoints customers keep");
  log
    .command("show")
    .description("catch the log up with the store and print its checkpoint (a signed note) and the verifier key customers check it with")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const shown = await execute(
        Effect.gen(function* () {
          const check = yield* checkReceiptLog;
          if (check.firstDifference !== undefined) return { check };
          return { check, checkpoint: yield* currentCheckpoint, verifierKey: (yield* NoteSigner).verifierKey };
        }),
      );
      if (shown.checkpoint === undefined) throw new ReceiptLogDiffers(differs(shown.check));
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ size: shown.checkpoint.size, checkpoint: shown.checkpoint.note, verifierKey: shown.verifierKey }, null, 2)}\n`
          : `${shown.checkpoint.note}\nverifier key: ${shown.verifierKey}\n`,
      );
    });
  log
    .command("verify")
    .description("derive the log afresh from the event store and hold the stored one against it leaf by leaf (exit 1 naming the first difference)")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const check = await execute(checkReceiptLog);
      if (options.json) process.stdout.write(`${JSON.stringify(check, null, 2)}\n`);
      if (check.firstDifference !== undefined) throw new ReceiptLogDiffers(differs(check));
      if (!options.json) process.stdout.write(`The receipts log's ${check.stored} leaves are the event store's, up to position ${check.upTo}\n`);
    });
  log
    .command("rebuild")
    .description("make the log again from the event store; customers' saved checkpoints show whether it still extends them")
    .action(async () => {
      const rebuilt = await execute(
        Effect.gen(function* () {
          const position = yield* rebuildProjection(yield* ReceiptLog);
          return { position, checkpoint: yield* currentCheckpoint };
        }),
      );
      process.stdout.write(`Rebuilt the receipts log up to position ${rebuilt.position}: ${rebuilt.checkpoint.size} leaves\n${rebuilt.checkpoint.note}`);
    });
};

const differs = (check: { readonly firstDifference?: number | undefined; readonly stored: number; readonly derived: number }) =>
  `the receipts log differs from the event store from leaf ${check.firstDifference} on (stored ${check.stored} leaves, the store makes ${check.derived}): ` +
  "if the store is right, run `itsctl ledger log rebuild`";
