import type { Principal } from "../../application/authenticate.ts";

/** What the middleware leaves in `ctx.state` for the handlers and the access log. */
declare module "koa" {
  interface DefaultState {
    /** The key's owner, set by authenticateKey. */
    principal?: Principal;
    /** The body's bytes as received (jsonBody), until the Idempotency-Key fingerprint is taken. */
    rawBody?: Buffer;
    /** What the access log records of a failed request: its code, and for a 5xx the cause. */
    failure?: { readonly code: string; readonly cause?: string };
  }
}
