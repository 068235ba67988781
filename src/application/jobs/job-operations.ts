import { Context, type Effect } from "effect";
import type { Feature } from "../../domain/plan.ts";
import type { EventStore } from "../../ports/event-store.ts";
import type { NoteSigner } from "../../ports/note-signer.ts";
import type { ReceiptLog } from "../../ports/receipt-log.ts";
import type { Principal } from "../access/authenticate.ts";
import { type GenerateInput, planGenerate } from "../transformations/generate.ts";
import { type OcrInput, planRecognizeText } from "../transformations/recognize-text.ts";
import type { Transformed } from "../transformations/run-transformation.ts";
import { planVirtualTryOn, type TryOnInput } from "../transformations/virtual-tryon.ts";

/** The body each asynchronous operation takes: the synchronous route's, as its Schema decoded it. */
export interface JobInputs {
  readonly generate: GenerateInput;
  readonly ocr: OcrInput;
  readonly "virtual-tryon": TryOnInput;
}

/** The plan of each operation's billed work: the same use cases the synchronous routes run. */
export const planJob = <O extends Feature>(operation: O, principal: Principal, input: JobInputs[O]) => {
  switch (operation) {
    case "generate":
      return planGenerate(principal, input as GenerateInput);
    case "ocr":
      return planRecognizeText(principal, input as OcrInput, "job");
    default:
      return planVirtualTryOn(principal, input as TryOnInput);
  }
};

export type JobPlan = Effect.Success<ReturnType<typeof planJob>>;

/** A job's outcome as the API states it: `data` exactly as the synchronous call answers, or the error body's code and message. */
export type JobOutcome = { readonly ok: true; readonly data: object } | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * How a finished job's work is stated: by the API adapter, which knows how each operation's
 * `data` is made (signed result URLs, the receipt) and how a failure reads in the error body.
 */
export interface JobPresenterShape {
  readonly present: (operation: Feature, transformed: Transformed<unknown>) => Effect.Effect<object, unknown, EventStore | NoteSigner | ReceiptLog>;
  readonly failure: (error: unknown) => { readonly code: string; readonly message: string };
}

export class JobPresenter extends Context.Service<JobPresenter, JobPresenterShape>()("JobPresenter") {}
