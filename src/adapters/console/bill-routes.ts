import type Router from "@koa/router";
import { Effect, Option, Schema } from "effect";
import type { Context } from "koa";
import { currentCheckpoint, statementOf } from "../../application/receipts/receipts.ts";
import { NoteSigner } from "../../ports/note-signer.ts";
import { BillingPeriod, TreeSizes } from "../http/groups/receipts/receipt-schemas.ts";
import { billPage } from "./bill-page.ts";
import { messagePage } from "./console-layout.ts";
import { type Execute, send, serverFault } from "./console-responses.ts";
import type { sessionGuards } from "./console-session.ts";

type SignedIn = ReturnType<typeof sessionGuards>["signedIn"];

/** What the bill's query asks for, held to the API's own schemas for GET /user/statement. */
type BillQuery =
  | { readonly ok: true; readonly period: string; readonly from: ReadonlyArray<number>; readonly fromText: string }
  | { readonly ok: false; readonly error: string };

const text = (ctx: Context, name: string) => {
  const value = ctx.query[name];
  return typeof value === "string" ? value.trim() : "";
};

const billQuery = (ctx: Context, currentPeriod: string): BillQuery => {
  const periodText = text(ctx, "period");
  const fromText = text(ctx, "from");
  const period = periodText === "" ? Option.some(currentPeriod) : Schema.decodeUnknownOption(BillingPeriod)(periodText);
  if (Option.isNone(period)) return { ok: false, error: "Give the month as YYYY-MM, e.g. 2026-01." };
  const from = fromText === "" ? Option.some([]) : Schema.decodeUnknownOption(TreeSizes)(fromText);
  if (Option.isNone(from)) return { ok: false, error: "Give the saved checkpoints' sizes as whole numbers joined by commas (16 at most)." };
  return { ok: true, period: period.value, from: from.value, fromText };
};

/** A file the browser saves rather than shows: a statement the verifier reads, or a checkpoint to keep. */
const attachment = (ctx: Context, filename: string, type: string, body: string) => {
  ctx.status = 200;
  ctx.type = type;
  ctx.set("Content-Disposition", `attachment; filename="${filename}"`);
  ctx.body = body;
};

/**
 * The bill's pages under /console/bill: the month's statement with its checkpoint and the verifier
 * key, the statement as the JSON verify-bill.mjs reads (GET /api/user/statement's `data`), and the
 * current checkpoint as text to save. The same use cases as the API, for the signed-in account only.
 */
export const billRoutes = (router: Router, execute: Execute, signedIn: SignedIn): void => {
  router.get(
    "/bill",
    signedIn(async (ctx, { session, view }) => {
      const asked = billQuery(ctx, view.quota.period);
      const { period, from, fromText } = asked.ok ? asked : { period: view.quota.period, from: [], fromText: "" };
      const shown = Effect.all({
        statement: statementOf(session.accountId, period, from),
        verifierKey: Effect.map(NoteSigner, (signer) => signer.verifierKey),
      });
      const result = await execute(ctx, shown);
      if (result === undefined) return;
      if (!result.ok) return serverFault(ctx, result.failure);
      const error = asked.ok ? undefined : asked.error;
      send(ctx, asked.ok ? 200 : 422, billPage({ view, csrfToken: session.csrfToken, ...result.value, from: fromText, ...(error ? { error } : {}) }));
    }),
  );

  router.get(
    "/bill/statement",
    signedIn(async (ctx, { session, view }) => {
      const asked = billQuery(ctx, view.quota.period);
      if (!asked.ok) return send(ctx, 422, messagePage("Statement not available", asked.error, { href: "/console/bill", label: "Back to the bill" }));
      const result = await execute(ctx, statementOf(session.accountId, asked.period, asked.from));
      if (result === undefined) return;
      if (!result.ok) return serverFault(ctx, result.failure);
      attachment(ctx, `statement-${session.accountId}-${asked.period}.json`, "application/json; charset=utf-8", `${JSON.stringify(result.value, null, 2)}\n`);
    }),
  );

  router.get(
    "/bill/checkpoint",
    signedIn(async (ctx) => {
      const result = await execute(ctx, currentCheckpoint);
      if (result === undefined) return;
      if (!result.ok) return serverFault(ctx, result.failure);
      attachment(ctx, `checkpoint-${result.value.size}.txt`, "text/plain; charset=utf-8", result.value.note);
    }),
  );
};
