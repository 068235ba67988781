import { Context } from "effect";

/**
 * The id the caller was given for this request (the API's X-Request-Id). A billable request's
 * reservation takes it as its requestId, so that what a customer received, an error included,
 * finds the request's receipts; without one (a job's run, a test) the ledger makes its own.
 */
export class CallerRequestId extends Context.Service<CallerRequestId, { readonly requestId: string }>()("CallerRequestId") {}
