import { Context, Schema } from "effect";
import type { Feature } from "../../../domain/plan.ts";

/**
 * An operation a client may ask to run as a job (`Prefer: respond-async`, RFC 7240): annotated on
 * its endpoint with the operation it bills; mount.ts answers such a request with 202 and the job.
 */
export class RespondsAsync extends Context.Service<RespondsAsync, Feature>()("image-transformation-api/RespondsAsync") {}

/** The request header, as the document declares it on the operations that take it. */
export const preferHeader = {
  prefer: Schema.optionalKey(
    Schema.String.annotate({
      identifier: "PreferHeader",
      description:
        "respond-async: answer 202 with the job at once (GET /jobs/{jobId} or a webhook gives the outcome); without it, the call waits for its result",
    }),
  ),
};

/** A preference token is its name before any `=` or `;`, in any case (RFC 7240 section 2). One pass over the header: linear in its length. */
export const prefersRespondAsync = (header: string | undefined): boolean =>
  header !== undefined && header.split(",").some((preference) => preference.split(/[;=]/, 1)[0]!.trim().toLowerCase() === "respond-async");
