import ort from "onnxruntime-node";

/**
 * Sessions for the CPU provider, sized for this service's machines: one request at a time per
 * engine, so one inference may use every core.
 */
export const createSession = (model: Uint8Array, threads: number): Promise<ort.InferenceSession> =>
  ort.InferenceSession.create(model, {
    executionProviders: ["cpu"],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
  });

export const runSingle = async (session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Promise<ort.Tensor> => {
  const outputs = await session.run(feeds);
  const name = session.outputNames[0];
  const out = name === undefined ? undefined : outputs[name];
  if (out === undefined) throw new Error("model produced no output");
  return out;
};
