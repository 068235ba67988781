import Router from "@koa/router";
import { Effect, Option } from "effect";
import type { Logger } from "pino";
import type { Principal } from "../../application/authenticate.ts";
import { generate } from "../../application/generate.ts";
import { getProfile } from "../../application/profile.ts";
import { ocrResponseData } from "../../application/ocr-response-data.ts";
import { recognizeText, supportedOcrLanguages } from "../../application/recognize-text.ts";
import { virtualTryOn } from "../../application/virtual-tryon.ts";
import { TEMPLATES } from "../../domain/template-catalog.ts";
import { Clock } from "../../ports/clock.ts";
import { ResultStore } from "../../ports/result-store.ts";
import { GenerateBody, OcrBody, VirtualTryOnBody } from "./api-schemas.ts";
import type { AppServices } from "./app-services.ts";
import { respondWith, type RunEffect } from "./effect-runner.ts";
import { authenticateKey } from "./middleware/authenticate-key.ts";
import { jsonBody } from "./middleware/json-body.ts";
import { decodeBody } from "./request-body.ts";
import { sendError } from "./respond.ts";
import type { ResultUrlSigner } from "../results/signed-result-url.ts";

export interface ApiRoutesOptions {
  readonly run: RunEffect<AppServices>;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly resultUrls: ResultUrlSigner;
  /** Absolute origin of result URLs, e.g. https://api.example.com */
  readonly publicBaseUrl: string;
  readonly openApiDocument: object;
}

/** The API under /api: public routes first, then the keyed ones behind authentication. */
export const apiRoutes = (options: ApiRoutesOptions): Router => {
  const { run, logger, resultUrls } = options;
  const resultUrlFor = (resultId: string, expiresAt: Date) =>
    `${options.publicBaseUrl}/api/results/${encodeURIComponent(resultId)}?${resultUrls.sign(resultId, expiresAt)}`;
  const router = new Router({ prefix: "/api" });
  const keyed = authenticateKey(run, logger);
  const json = jsonBody(options.maxBodyBytes);
  const principalOf = (state: { principal?: Principal }): Principal => state.principal!;

  router.get("/openapi.json", (ctx) => {
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.body = options.openApiDocument;
  });

  router.get("/results/:resultId", async (ctx) => {
    const resultId = ctx.params.resultId ?? "";
    const exit = await run(
      Effect.gen(function* () {
        const now = (yield* Clock).now();
        const check = resultUrls.verify(resultId, ctx.querystring, now);
        if (check !== "ok") return check;
        return Option.map(yield* (yield* ResultStore).get(resultId, now), (result) => ({ result, now }));
      }),
    );
    if (exit._tag === "Failure") return sendError(ctx, { status: 503, code: "SERVICE_UNAVAILABLE", message: "Results are unavailable; retry shortly.", headers: { "Retry-After": "5" } });
    const outcome = exit.value;
    if (outcome === "tampered") return sendError(ctx, { status: 403, code: "INVALID_SIGNATURE", message: "The result URL's signature does not match." });
    if (outcome === "expired" || Option.isNone(outcome)) return sendError(ctx, { status: 404, code: "NOT_FOUND", message: "The result does not exist or has expired." });
    const { result, now } = outcome.value;
    ctx.set("Cache-Control", `private, max-age=${Math.max(0, Math.floor((result.expiresAt.getTime() - now.getTime()) / 1000))}`);
    ctx.type = result.contentType;
    ctx.body = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
  });

  router.get("/templates", keyed, (ctx) =>
    respondWith(ctx, run, logger, Effect.succeed(TEMPLATES), (templates) => ({
      templates: templates.map(({ template, templateType, description, output, plans }) => ({ template, templateType, description, output, plans })),
    })),
  );

  router.get("/user/profile", keyed, (ctx) => respondWith(ctx, run, logger, getProfile(principalOf(ctx.state)), (profile) => profile));

  router.post("/generate", keyed, json, (ctx) =>
    respondWith(
      ctx,
      run,
      logger,
      decodeBody(GenerateBody, ctx.request.body).pipe(Effect.flatMap((body) => generate(principalOf(ctx.state), body))),
      ({ requestId, value, processingTimeMs }) => ({
        requestId,
        resultUrl: resultUrlFor(value.resultId, value.expiresAt),
        expiresAt: value.expiresAt.toISOString(),
        template: value.template,
        templateType: value.templateType,
        format: value.format,
        width: value.width,
        height: value.height,
        bytes: value.bytes,
        processingTime: processingTimeMs,
      }),
    ),
  );

  router.get("/ocr/languages", keyed, (ctx) => respondWith(ctx, run, logger, supportedOcrLanguages, (languages) => ({ languages })));

  router.post("/ocr", keyed, json, (ctx) =>
    respondWith(
      ctx,
      run,
      logger,
      decodeBody(OcrBody, ctx.request.body).pipe(Effect.flatMap((body) => recognizeText(principalOf(ctx.state), body))),
      ({ requestId, value, processingTimeMs }) => ({ requestId, ...ocrResponseData(value, processingTimeMs) }),
    ),
  );

  router.post("/virtual-tryon", keyed, json, (ctx) =>
    respondWith(
      ctx,
      run,
      logger,
      decodeBody(VirtualTryOnBody, ctx.request.body).pipe(Effect.flatMap((body) => virtualTryOn(principalOf(ctx.state), body))),
      ({ requestId, value, processingTimeMs }) => ({
        requestId,
        resultUrl: resultUrlFor(value.resultId, value.expiresAt),
        expiresAt: value.expiresAt.toISOString(),
        settings: value.settings,
        format: value.format,
        width: value.width,
        height: value.height,
        processingTime: processingTimeMs,
      }),
    ),
  );

  return router;
};
