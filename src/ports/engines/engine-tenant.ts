import { Context } from "effect";

/**
 * Whose work an engine job is (the account id), so engine slots can be shared fairly between
 * accounts. The use case provides it around the processing it asks for; unset, all work is one
 * tenant's ("").
 */
export const EngineTenant = Context.Reference<string>("EngineTenant", { defaultValue: () => "" });
