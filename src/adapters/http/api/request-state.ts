import type { Principal } from "../../../application/access/authenticate.ts";

/**
 * What the middleware leaves in `ctx.state` for the access log (and the console's error page). The
 * handlers get what they need as typed values from mount.ts, never from here.
 */
declare module "koa" {
  interface DefaultState {
    /** The key's owner, set by authenticateKey, logged with the request. */
    principal?: Principal;
    /** What the access log records of a failed request: its code, and for a 5xx the cause. */
    failure?: { readonly code: string; readonly overload?: true; readonly cause?: string };
  }
}
