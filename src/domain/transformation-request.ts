import { accept, type Decider, type Decision, reject } from "./decider.ts";
import type { Feature } from "./plan.ts";

/**
 * The life of one transformation request: what was asked, by which key, and how it ended.
 * Stream: `transformation-<requestId>`.
 */
export const transformationStream = (requestId: string): string => `transformation-${requestId}`;

type Parameters = Readonly<Record<string, string>>;

export type TransformationEvent =
  | {
      readonly type: "TransformationRequested";
      readonly data: { requestId: string; accountId: string; keyId: string; operation: Feature; parameters: Parameters; at: string };
    }
  | {
      readonly type: "TransformationCompleted";
      readonly data: { requestId: string; processingTimeMs: number; output: Parameters; at: string };
    }
  | { readonly type: "TransformationFailed"; readonly data: { requestId: string; code: string; at: string } };

export type TransformationCommand =
  | {
      readonly type: "RequestTransformation";
      readonly requestId: string;
      readonly accountId: string;
      readonly keyId: string;
      readonly operation: Feature;
      readonly parameters: Parameters;
      readonly now: Date;
    }
  | { readonly type: "CompleteTransformation"; readonly processingTimeMs: number; readonly output: Parameters; readonly now: Date }
  | { readonly type: "FailTransformation"; readonly code: string; readonly now: Date };

export type TransformationState =
  { readonly status: "none" } | { readonly status: "requested" | "completed" | "failed"; readonly requestId: string; readonly operation: Feature };

const decide = (command: TransformationCommand, state: TransformationState): Decision<TransformationEvent> => {
  const at = command.now.toISOString();
  if (command.type === "RequestTransformation") {
    if (state.status !== "none") return reject("REQUEST_EXISTS", `request ${command.requestId} already exists`);
    const { requestId, accountId, keyId, operation, parameters } = command;
    return accept({ type: "TransformationRequested", data: { requestId, accountId, keyId, operation, parameters, at } });
  }
  if (state.status === "none") return reject("REQUEST_NOT_FOUND", "no such transformation request");
  if (state.status !== "requested") return reject("REQUEST_FINISHED", `request ${state.requestId} already ${state.status}`);
  const requestId = state.requestId;
  return command.type === "CompleteTransformation"
    ? accept({
        type: "TransformationCompleted",
        data: { requestId, processingTimeMs: command.processingTimeMs, output: command.output, at },
      })
    : accept({ type: "TransformationFailed", data: { requestId, code: command.code, at } });
};

const evolve = (state: TransformationState, event: TransformationEvent): TransformationState => {
  switch (event.type) {
    case "TransformationRequested":
      return { status: "requested", requestId: event.data.requestId, operation: event.data.operation };
    case "TransformationCompleted":
      return state.status === "none" ? state : { ...state, status: "completed" };
    case "TransformationFailed":
      return state.status === "none" ? state : { ...state, status: "failed" };
  }
};

export const transformationRequestDecider: Decider<TransformationCommand, TransformationEvent, TransformationState> = {
  decide,
  evolve,
  initialState: () => ({ status: "none" }),
};
