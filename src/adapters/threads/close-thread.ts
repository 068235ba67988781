import type { Worker } from "node:worker_threads";

/**
 * Ending a thread that has run onnxruntime: it is asked to close its port and exits once its
 * running work has ended. `Worker.terminate()` on such a thread aborts the whole process (the
 * addon throws during teardown: "terminate called after throwing an instance of 'Napi::Error'"),
 * idle or mid-inference, so it is only the last resort for a thread that has not exited
 * CLOSE_GRACE_MS after being asked.
 */
export interface CloseRequest {
  readonly kind: "close";
}

const CLOSE_GRACE_MS = 30_000;

export const isCloseRequest = (message: unknown): message is CloseRequest =>
  typeof message === "object" && message !== null && (message as { readonly kind?: unknown }).kind === "close";

export const closeThread = async (worker: Worker): Promise<void> => {
  const exited = new Promise<"exited">((resolve) => worker.once("exit", () => resolve("exited")));
  worker.postMessage({ kind: "close" } satisfies CloseRequest);
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<"overdue">((resolve) => (timer = setTimeout(() => resolve("overdue"), CLOSE_GRACE_MS).unref()));
  if ((await Promise.race([exited, overdue])) === "overdue") await worker.terminate();
  clearTimeout(timer);
};
