/**
 * Everything this service makes on a NATS server is named from one namespace (NATS_NAMESPACE), so
 * several deployments, or test runs, can share a server without meeting.
 */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export interface NatsNames {
  /** The JetStream stream that holds the events. */
  readonly eventStream: string;
  /** Its subjects: `<subjectRoot>.<category>`. */
  readonly subjectRoot: string;
  /** KV bucket: the forwarder's checkpoint. */
  readonly checkpointBucket: string;
  /** KV bucket: the token buckets of the rate limiter. */
  readonly rateLimitBucket: string;
  /** Object Store bucket: results, with RESULT_STORE=nats. */
  readonly resultBucket: string;
}

export const natsNames = (namespace: string): NatsNames => {
  if (!NAMESPACE_PATTERN.test(namespace)) throw new RangeError(`not a NATS namespace: ${namespace} (1-32 of A-Z a-z 0-9 _ -)`);
  return {
    eventStream: `${namespace}-events`,
    subjectRoot: `${namespace}.events`,
    checkpointBucket: `${namespace}-checkpoints`,
    rateLimitBucket: `${namespace}-rate-limits`,
    resultBucket: `${namespace}-results`,
  };
};

/** Subject tokens and durable names may not hold `.`, `*`, `>` or white space. */
export const natsToken = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, "_");
