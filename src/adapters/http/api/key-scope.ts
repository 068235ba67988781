import { Context } from "effect";
import type { KeyScope } from "../../../domain/key-restrictions.ts";

/**
 * The scope a key needs to call an endpoint (issue 42), annotated on the endpoint in its group;
 * mount.ts hands it to admission, which refuses a key without it before anything else is read.
 * An endpoint without one (the profile, catalogs, receipts, jobs) is open to every key.
 */
export class RequiresScope extends Context.Service<RequiresScope, KeyScope>()("image-transformation-api/RequiresScope") {}
