import autocannon from "autocannon";

/** Requests per second (and latency) of one autocannon run over HTTPS with keep-alive. */
export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

export const loadTest = async (options: {
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly connections: number;
  readonly seconds: number;
  readonly ca: Buffer;
}): Promise<LoadResult> => {
  const result = await autocannon({
    url: options.url,
    headers: options.headers ?? {},
    connections: options.connections,
    duration: options.seconds,
    pipelining: 1,
    tlsOptions: { ca: options.ca },
  } as autocannon.Options);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
};
