import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { ImageTransformationApi } from "../../src/adapters/http/api/api-definition.ts";
import { apiHandlers } from "../../src/adapters/http/api/api-handlers.ts";
import type { AppServices } from "../../src/adapters/http/api/app-services.ts";
import type { Handlers } from "../../src/adapters/http/api/mount.ts";
import { makeResultUrlSigner } from "../../src/adapters/results/signed-result-url.ts";

type ApiHandlers = Handlers<typeof ImageTransformationApi, AppServices>;

describe("the handlers of the API definition", () => {
  const handlers = apiHandlers({ resultUrls: makeResultUrlSigner("x".repeat(32)), publicBaseUrl: "https://api.example.com" });

  it("are one per endpoint, by its name", () => {
    const endpoints = Object.values(ImageTransformationApi.groups).flatMap((group) => Object.keys(group.endpoints));
    expect(Object.keys(handlers).sort()).toEqual(endpoints.sort());
  });

  it("do not compile with a handler missing or one the definition does not name", () => {
    const { getProfile, ...missingOne } = handlers;
    expect(getProfile).toBeTypeOf("function");
    // @ts-expect-error getProfile has no handler
    const missing: ApiHandlers = missingOne;
    // @ts-expect-error deleteEverything is no endpoint
    const extra: ApiHandlers = { ...handlers, deleteEverything: () => Effect.void };
    expect([missing, extra]).toHaveLength(2);
  });
});
