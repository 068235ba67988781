import ort from "onnxruntime-node";

/**
 * Sessions for the CPU provider, sized for this service's machines: one request at a time per
 * engine, so one inference may use every core. Image sizes vary per request, so by default the
 * arena and memory-pattern caches (which keep the largest shapes seen) are off: memory follows
 * the request in hand instead of ratcheting up. `arena` keeps a session's buffers between runs,
 * for a model whose input size is fixed: without it, each run's multi-megabyte activations are
 * mapped afresh and their pages faulted in again (blazeface-model.ts). `spinning: false` lets a pool
 * thread sleep as soon as its share of an operator is done instead of polling for the next one:
 * for a model of many short operators, most of the pool's speed-up without the polling's CPU
 * (blazeface-face-detector.ts).
 */
export const createSession = (
  model: Uint8Array,
  threads: number,
  { arena = false, spinning = true }: { readonly arena?: boolean; readonly spinning?: boolean } = {},
): Promise<ort.InferenceSession> =>
  ort.InferenceSession.create(model, {
    executionProviders: ["cpu"],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    enableCpuMemArena: arena,
    enableMemPattern: false,
    ...(spinning ? {} : { extra: { session: { intra_op: { allow_spinning: "0" } } } }),
  });

export const runSingle = async (session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Promise<ort.Tensor> => {
  const outputs = await session.run(feeds);
  const name = session.outputNames[0];
  const out = name === undefined ? undefined : outputs[name];
  if (out === undefined) throw new Error("model produced no output");
  return out;
};
