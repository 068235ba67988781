import Router from "@koa/router";
import { Effect, Option } from "effect";
import type { Logger } from "pino";
import type { Principal } from "../../application/authenticate.ts";
import { NotFound } from "../../application/errors.ts";
import { generate } from "../../application/generate.ts";
import { ocrResponseData } from "../../application/ocr-response-data.ts";
import { getProfile } from "../../application/profile.ts";
import { recognizeText, supportedOcrLanguages } from "../../application/recognize-text.ts";
import type { Transformed } from "../../application/run-transformation.ts";
import { virtualTryOn } from "../../application/virtual-tryon.ts";
import { TEMPLATES } from "../../domain/template-catalog.ts";
import { Clock } from "../../ports/clock.ts";
import { ResultStore } from "../../ports/result-store.ts";
import type { ResultUrlSigner } from "../results/signed-result-url.ts";
import type { AdmissionBudget } from "./admission-budget.ts";
import {
  GenerateImageResponse,
  OcrLanguagesResponse,
  ProfileResponse,
  RecognizeTextResponse,
  TemplatesResponse,
  VirtualTryOnResponse,
} from "./api-definition.ts";
import { GenerateBody, OcrBody, VirtualTryOnBody } from "./api-schemas.ts";
import type { AppServices } from "./app-services.ts";
import { respondWith, type RunEffect } from "./effect-runner.ts";
import { InvalidSignature } from "./http-errors.ts";
import { authenticateKey } from "./middleware/authenticate-key.ts";
import { engineAdmission } from "./middleware/engine-admission.ts";
import { idempotency } from "./middleware/idempotency.ts";
import { type BodyLimits, jsonBody } from "./middleware/json-body.ts";
import { decodeBody } from "./request-body.ts";
import { sendFailure } from "./respond.ts";

export interface ApiRoutesOptions {
  readonly run: RunEffect<AppServices>;
  readonly logger: Logger;
  readonly maxBodyBytes: BodyLimits;
  readonly resultUrls: ResultUrlSigner;
  /** Absolute origin of result URLs, e.g. https://api.example.com */
  readonly publicBaseUrl: string;
  readonly openApiDocument: object;
  /** Memory the requests waiting on an engine may hold; more are refused before their bodies are read. */
  readonly admissionBudget: AdmissionBudget;
}

/**
 * The API under /api, as api-definition.ts declares it: public routes first, then the keyed ones
 * behind authentication. Each handler maps its use case's value to the operation's `data`, which
 * respondWith encodes through the operation's Schema.
 */
export const apiRoutes = (options: ApiRoutesOptions): Router => {
  const { run, resultUrls } = options;
  const resultUrlFor = (resultId: string, expiresAt: Date) =>
    `${options.publicBaseUrl}/api/results/${encodeURIComponent(resultId)}?${resultUrls.sign(resultId, expiresAt)}`;
  /** A transformation whose result is stored: its value, with the signed URL that serves it. */
  const storedResultData = <V extends { readonly resultId: string; readonly expiresAt: Date }>({ requestId, value, processingTimeMs }: Transformed<V>) => ({
    ...value,
    requestId,
    resultUrl: resultUrlFor(value.resultId, value.expiresAt),
    expiresAt: value.expiresAt.toISOString(),
    processingTime: processingTimeMs,
  });
  const router = new Router({ prefix: "/api" });
  const keyed = authenticateKey(run);
  // Each route reads at most what its images need: a one-image route does not take a try-on's two.
  const idempotent = idempotency(run, options.logger);
  // Admission by memory comes first: a request refused for a full budget is never read.
  const oneImage = [engineAdmission(options.admissionBudget, options.maxBodyBytes.oneImage), jsonBody(options.maxBodyBytes.oneImage), idempotent];
  const twoImages = [engineAdmission(options.admissionBudget, options.maxBodyBytes.twoImages), jsonBody(options.maxBodyBytes.twoImages), idempotent];
  const principalOf = (state: { readonly principal?: Principal | undefined }): Principal => state.principal!;

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
        if (check === "tampered") return yield* new InvalidSignature();
        const found = check === "ok" ? yield* (yield* ResultStore).get(resultId, now) : Option.none();
        if (Option.isNone(found)) return yield* new NotFound({ message: "The result does not exist or has expired." });
        return { result: found.value, now };
      }),
    );
    if (exit._tag === "Failure") return sendFailure(ctx, exit.cause);
    const { result, now } = exit.value;
    ctx.set("Cache-Control", `private, max-age=${Math.max(0, Math.floor((result.expiresAt.getTime() - now.getTime()) / 1000))}`);
    ctx.type = result.contentType;
    ctx.body = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
  });

  router.get("/templates", keyed, (ctx) =>
    respondWith(ctx, run, Effect.succeed(TEMPLATES), TemplatesResponse, (templates) => ({
      templates: templates.map(({ template, templateType, description, output, plans }) => ({ template, templateType, description, output, plans })),
    })),
  );

  router.get("/user/profile", keyed, (ctx) => respondWith(ctx, run, getProfile(principalOf(ctx.state)), ProfileResponse, (profile) => profile));

  router.post("/generate", keyed, ...oneImage, (ctx) =>
    respondWith(
      ctx,
      run,
      decodeBody(GenerateBody, ctx.request.body).pipe(Effect.flatMap((body) => generate(principalOf(ctx.state), body))),
      GenerateImageResponse,
      storedResultData,
    ),
  );

  router.get("/ocr/languages", keyed, (ctx) => respondWith(ctx, run, supportedOcrLanguages, OcrLanguagesResponse, (languages) => ({ languages })));

  router.post("/ocr", keyed, ...oneImage, (ctx) =>
    respondWith(
      ctx,
      run,
      decodeBody(OcrBody, ctx.request.body).pipe(Effect.flatMap((body) => recognizeText(principalOf(ctx.state), body))),
      RecognizeTextResponse,
      ({ requestId, value, processingTimeMs }) => ({ requestId, ...ocrResponseData(value, processingTimeMs) }),
    ),
  );

  router.post("/virtual-tryon", keyed, ...twoImages, (ctx) =>
    respondWith(
      ctx,
      run,
      decodeBody(VirtualTryOnBody, ctx.request.body).pipe(Effect.flatMap((body) => virtualTryOn(principalOf(ctx.state), body))),
      VirtualTryOnResponse,
      storedResultData,
    ),
  );

  return router;
};
