import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api";
import { ApiKey, KEYED } from "../../api/api-security.ts";
import { Success } from "../../api/response-schemas.ts";
import { errorResponses } from "../../errors/documented-errors.ts";
import { ProfileData } from "./account-schemas.ts";

export const ProfileResponse = Success("ProfileReply", ProfileData);

/** The account that owns the calling key; part of the API's definition (api-definition.ts). */
export const account = HttpApiGroup.make("account", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getProfile", "/user/profile", {
      success: ProfileResponse.annotate({ description: "Account, plan, features, this month's quota, rate limit and the calling key" }),
      error: errorResponses("Keyed", KEYED),
    })
      .annotate(OpenApi.Summary, "The account that owns the key")
      .annotate(OpenApi.Description, "Plan, features, this month's quota (reset at the start of each UTC month), the key's rate limit and the calling key."),
  )
  .middleware(ApiKey)
  .annotateMerge(OpenApi.annotations({ title: "Account", description: "The calling account." }));
