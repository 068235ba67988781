import Router from "@koa/router";
import { Context as Annotations, Effect, Schema } from "effect";
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api";
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import type { Principal } from "../../../application/access/authenticate.ts";
import { type AcceptedJob, acceptJob } from "../../../application/jobs/accept-job.ts";
import type { JobInputs } from "../../../application/jobs/job-operations.ts";
import { echo } from "../../../domain/echo.ts";
import type { Feature } from "../../../domain/plan.ts";
import { decodeBody } from "../bodies/request-body.ts";
import { type ApiError, errorResponseOf } from "../errors/error-catalog.ts";
import { MethodNotAllowed } from "../errors/protocol-errors.ts";
import { admission, authenticateKey } from "../middleware/authenticate-key.ts";
import { admitByMemory } from "../middleware/engine-admission.ts";
import { idempotencyKeyOf, idempotent } from "../middleware/idempotency.ts";
import { readJsonObject } from "../middleware/json-body.ts";
import { operatorCredential } from "../middleware/operator-credential.ts";
import type { AdmissionBudget } from "../server/admission-budget.ts";
import { ApiKey, OperatorToken } from "./api-security.ts";
import type { AppServices } from "./app-services.ts";
import { respondWith, type RunEffect } from "./effect-runner.ts";
import { type BodyLimits, EngineWork } from "./engine-work.ts";
import { RequiresScope } from "./key-scope.ts";
import { sendError, sendSuccess, type SuccessSchema } from "./respond.ts";
import { prefersRespondAsync, RespondsAsync } from "./respond-async.ts";

/**
 * The Koa router, built from the API definition: each endpoint's method, path, authentication,
 * admission, body limit, Idempotency-Key, payload and success schema are read from it, and its
 * handler is found by the endpoint's name. A route is one endpoint in its group (groups/<group>/) and one
 * handler in the group's record, which must name every endpoint and no other (or it does not compile).
 */

type EndpointOf<Api> = Api extends HttpApi.HttpApi<string, infer Groups> ? HttpApiGroup.Endpoints<Groups> : never;
type Fields<S> = [S] extends [never] ? Record<never, never> : S extends Schema.Top ? S["Type"] : never;

/** A binary success (a stored result): its bytes, their type, and headers of its own. */
export interface BinaryReply {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What a handler gives: the `data` of the success envelope, or the bytes of a binary success. */
type ReplyOf<E> = HttpApiEndpoint.Success<E>["Type"] extends { readonly success: true; readonly data: infer D } ? D : BinaryReply;

/** What a handler gets: the decoded path parameters and payload, the query's single values, the Accept header, and who called. */
export type RouteRequest<E> = {
  readonly params: Fields<HttpApiEndpoint.Params<E>>;
  readonly payload: Fields<HttpApiEndpoint.Payload<E>>;
  /**
   * The Accept header as sent (undefined when absent or empty), for content negotiation: OpenAPI
   * declares it through an operation's response content types, never as a parameter.
   */
  readonly accept: string | undefined;
  /** Each query parameter given once (a repeated one is absent), as sent; the raw query for signatures. */
  readonly query: { readonly [K in keyof Fields<HttpApiEndpoint.Query<E>>]?: string };
  readonly querystring: string;
} & (ApiKey extends HttpApiEndpoint.Middleware<E> ? { readonly principal: Principal } : unknown);

export type Handler<E, R> = (request: RouteRequest<E>) => Effect.Effect<ReplyOf<E>, ApiError, R>;

/** One handler per endpoint, keyed by its name. */
export type Handlers<Api, R> = { readonly [E in EndpointOf<Api> as HttpApiEndpoint.Identifier<E>]: Handler<E, R> };

/** One handler per endpoint of a group (or of a union of groups), keyed by its name: a group's part of Handlers. */
export type GroupHandlers<Group, R> = { readonly [E in HttpApiGroup.Endpoints<Group> as HttpApiEndpoint.Identifier<E>]: Handler<E, R> };

export interface MountOptions {
  /** Where the routes are mounted (/api): a 202's Location names the job under it. */
  readonly prefix: string;
  readonly run: RunEffect<AppServices>;
  readonly logger: Logger;
  readonly maxBodyBytes: BodyLimits;
  /** Memory the requests waiting on an engine may hold; more are refused before their bodies are read. */
  readonly admissionBudget: AdmissionBudget;
  /** OPERATOR_TOKEN: opens the operator routes; undefined keeps them closed. */
  readonly operatorToken: string | undefined;
}

type AnyHandler = (request: Record<string, unknown>) => Effect.Effect<unknown, ApiError, AppServices>;

const singleValues = (query: Context["query"]): Record<string, string> => {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) if (typeof value === "string") values[name] = value;
  return values;
};

/** A JSON success (the envelope), unless the definition marks its body as text or bytes (HttpApiSchema.asText, asUint8Array). */
const isJson = (schema: Schema.Top) => {
  const encoding = schema.ast.annotations?.["~httpApiEncoding"] as { readonly _tag?: string } | undefined;
  return encoding === undefined || encoding._tag === "Json";
};

/** The status HttpApiSchema.status gave a success schema (as an annotation or a key annotation), else 200. */
const successStatusOf = (schema: Schema.Top): number => {
  const status = schema.ast.annotations?.["httpApiStatus"] ?? schema.ast.context?.annotations?.["httpApiStatus"];
  return typeof status === "number" ? status : 200;
};

const sendBinary = (ctx: Context, reply: BinaryReply) => {
  ctx.set(reply.headers);
  ctx.type = reply.contentType;
  ctx.body = Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
};

/** The route of one endpoint: its steps, in the order a request meets them, from what the definition says of it. */
const routeOf = (endpoint: HttpApiEndpoint.Top, handler: AnyHandler, options: MountOptions): Middleware => {
  const { run } = options;
  const keyed = [...endpoint.middlewares].some((key) => key.key === ApiKey.key);
  const operator = [...endpoint.middlewares].some((key) => key.key === OperatorToken.key);
  const bodySize = Annotations.getOrUndefined(endpoint.annotations, EngineWork);
  const scope = Annotations.getOrUndefined(endpoint.annotations, RequiresScope);
  const payload = [...endpoint.payload.values()][0]?.schemas[0] as Schema.Decoder<unknown> | undefined;
  if (payload !== undefined && bodySize === undefined) throw new Error(`${endpoint.identifier}: a payload needs its body size (EngineWork)`);
  const takesKey = endpoint.headers?.ast._tag === "Objects" && endpoint.headers.ast.propertySignatures.some((field) => field.name === "idempotency-key");
  // On an operation that may run as a job (RespondsAsync), the 202 is the job; the other success is the operation's own reply.
  const asyncOperation = Annotations.getOrUndefined(endpoint.annotations, RespondsAsync);
  const isAccepted = (schema: Schema.Top) => asyncOperation !== undefined && successStatusOf(schema) === 202;
  const accepted = [...endpoint.success].find(isAccepted) as unknown as SuccessSchema<AcceptedJob> | undefined;
  if (asyncOperation !== undefined && accepted === undefined) throw new Error(`${endpoint.identifier}: RespondsAsync needs a 202 success`);
  const successes = [...endpoint.success].filter((schema) => !isAccepted(schema));
  const envelope = successes.length === 1 && isJson(successes[0]!) ? (successes[0] as unknown as SuccessSchema<unknown>) : undefined;
  // 200, unless the definition gives the success a status of its own (201 for a creation).
  const successStatus = successes.length === 1 ? successStatusOf(successes[0]!) : 200;
  // Path parameters are strings the router matched: their schemas (Schema.String) cannot refuse them.
  const decodeParams = endpoint.params === undefined ? undefined : Schema.decodeUnknownSync(endpoint.params as Schema.Decoder<Record<string, unknown>>);

  const authenticate = keyed ? authenticateKey(run, scope) : undefined;
  const operatorOnly = operator ? operatorCredential(options.operatorToken, run) : undefined;
  const jobHeaders = (ctx: Context, jobId: string) => {
    ctx.set("Location", `${options.prefix}/jobs/${encodeURIComponent(jobId)}`);
    ctx.set("Preference-Applied", "respond-async");
  };
  const keepResponse = idempotent(run, options.logger, (ctx, body) => {
    const jobId = (body as { readonly data?: { readonly jobId?: unknown } }).data?.jobId;
    if (ctx.status === 202 && accepted !== undefined && typeof jobId === "string") jobHeaders(ctx, jobId);
  });

  const send = (ctx: Context, reply: unknown) =>
    envelope === undefined ? sendBinary(ctx, reply as BinaryReply) : sendSuccess(ctx, envelope, reply, successStatus);
  const respond = (ctx: Context, request: Effect.Effect<Record<string, unknown>, ApiError, AppServices>) =>
    respondWith(ctx, run, Effect.flatMap(request, handler), (reply) => send(ctx, reply));

  /** Prefer: respond-async on an operation that takes it: everything checked and reserved, the work left to a job (application/jobs). */
  const respondAsync = (
    ctx: Context,
    request: Effect.Effect<{ readonly principal?: Principal | undefined; readonly payload: unknown }, ApiError, AppServices>,
  ) =>
    respondWith(
      ctx,
      run,
      Effect.flatMap(request, ({ principal, payload }) => acceptJob(principal!, asyncOperation!, payload as JobInputs[Feature])),
      (job) => {
        jobHeaders(ctx, job.jobId);
        sendSuccess(ctx, accepted!, job, 202);
      },
    );

  const requestOf = (ctx: Context) => ({
    params: decodeParams?.(ctx.params) ?? {},
    query: singleValues(ctx.query),
    querystring: ctx.querystring,
    accept: ctx.get("accept") || undefined,
  });

  return async (ctx) => {
    // Without a body, admission and the use case run as one effect: one run per request.
    if (keyed && payload === undefined) {
      const admitted = Effect.map(admission(ctx, scope), (principal) => ({ ...requestOf(ctx), principal, payload: {} }));
      return respond(ctx, admitted);
    }
    const principal = authenticate && (await authenticate(ctx));
    if (authenticate && principal === undefined) return;
    if (operatorOnly && !(await operatorOnly(ctx))) return;
    const request = { ...requestOf(ctx), principal };
    if (bodySize === undefined || payload === undefined) return respond(ctx, Effect.succeed({ ...request, payload: {} }));
    // Admission by memory comes first: a request refused for a full budget is never read.
    const release = admitByMemory(ctx, options.admissionBudget, options.maxBodyBytes[bodySize]);
    if (release === undefined) return;
    try {
      const body = await readJsonObject(ctx, options.maxBodyBytes[bodySize], takesKey && idempotencyKeyOf(ctx) !== undefined);
      if (body === undefined) return;
      // The payload decoded is the one the document declares.
      const decoded = Effect.map(decodeBody(payload, body.value), (value) => ({ ...request, payload: value }));
      const handle = asyncOperation !== undefined && prefersRespondAsync(ctx.get("prefer")) ? () => respondAsync(ctx, decoded) : () => respond(ctx, decoded);
      await (takesKey && principal !== undefined ? keepResponse(ctx, principal, body.digest, handle) : handle());
    } finally {
      release();
    }
  };
};

/** The methods a route may take, so the ones a path may answer with 405 before another route takes them. */
const OVERRIDABLE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** The API's routes under `prefix`, each as api-definition.ts declares it, answered by its handler. */
export const mount = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  handlers: Handlers<HttpApi.HttpApi<Id, Groups>, AppServices>,
  options: MountOptions,
): Router => {
  // Strict: a path is the document's exactly. Without it /templates/ (what a client makes of
  // /templates/.) answered the list, a path the document does not declare.
  const router = new Router({ prefix: options.prefix, strict: true });
  const byName = handlers as unknown as Readonly<Record<string, AnyHandler>>;
  const endpoints = Object.values(api.groups as unknown as Record<string, HttpApiGroup.Top>).flatMap(
    (group) => Object.values(group.endpoints) as Array<HttpApiEndpoint.Top>,
  );
  const shielded = new Set<string>();
  for (const endpoint of endpoints) {
    const handler = byName[endpoint.identifier];
    if (handler === undefined) throw new Error(`no handler for ${endpoint.identifier}`);
    router.register(endpoint.path, [endpoint.method], routeOf(endpoint, handler, options), { name: endpoint.identifier });
    // A literal path (/templates/fonts) answers its other methods with 405 itself, before a path
    // with a parameter declared after it (/templates/:id) could take them.
    if (!endpoint.path.includes(":") && !shielded.has(endpoint.path)) {
      shielded.add(endpoint.path);
      const allow: Array<string> = endpoints.filter(({ path }) => path === endpoint.path).map(({ method }) => method);
      const others = OVERRIDABLE_METHODS.filter((method) => !allow.includes(method));
      if (allow.includes("GET")) allow.push("HEAD");
      // A layer with no method would run for every method, as middleware.
      if (others.length > 0)
        router.register(endpoint.path, others, (ctx) =>
          sendError(ctx, errorResponseOf(new MethodNotAllowed({ method: echo(ctx.method), path: echo(ctx.path), allow }))),
        );
    }
  }
  return router;
};
