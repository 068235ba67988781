import type { HttpsClient } from "./https-client.ts";

/**
 * Asks `GET /healthz` over and over, one request at a time, while something else runs, and
 * keeps the longest answer time: how long the instance stopped answering anyone. A request
 * still waiting when the watch stops counts with the time it has waited so far.
 */
export interface HealthzWatch {
  readonly stop: () => Promise<{ readonly longestMs: number; readonly answers: number }>;
}

export const watchHealthz = (client: HttpsClient, everyMs = 20): HealthzWatch => {
  let running = true;
  let longestMs = 0;
  let answers = 0;
  let askedAt = 0;
  const loop = (async () => {
    while (running) {
      askedAt = performance.now();
      const reply = await client.request("GET", "/healthz");
      if (reply.status !== 200) throw new Error(`/healthz answered ${reply.status}`);
      longestMs = Math.max(longestMs, performance.now() - askedAt);
      answers++;
      askedAt = 0;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      const waiting = askedAt === 0 ? 0 : performance.now() - askedAt;
      await loop;
      return { longestMs: Math.max(longestMs, waiting), answers };
    },
  };
};
