import type { AccountEvent } from "../../domain/account.ts";
import type { AccountTemplateEvent } from "../../domain/account-templates/account-template.ts";
import { describeRestrictions } from "../../domain/describe-restrictions.ts";
import type { HolderAccessEvent } from "../../domain/holder-access.ts";
import type { JobAcceptedData, JobEvent } from "../../domain/job.ts";
import type { QuotaEvent } from "../../domain/quota-ledger.ts";
import type { WebhookEndpointEvent } from "../../domain/webhook-endpoints.ts";
import type { AuditEntry } from "./audit-report.ts";

/** What each event means, in the words of the audit's history. */
export const describeAccountEvent = (event: AccountEvent): Pick<AuditEntry, "what" | "keyId"> => {
  switch (event.type) {
    case "AccountOpened":
      return { what: `account opened on the ${event.data.plan} plan`, keyId: null };
    case "AccountPlanChanged":
      return { what: `plan changed from ${event.data.from} to ${event.data.to}`, keyId: null };
    case "ApiKeyIssued":
      return { what: `key issued (${JSON.stringify(event.data.name)}; ${describeRestrictions(event.data.restrictions)})`, keyId: event.data.keyId };
    case "ApiKeyRevoked":
      return { what: "key revoked", keyId: event.data.keyId };
    case "ApiKeyRolled":
      return {
        what: `key rolled to ${event.data.newKeyId} (${JSON.stringify(event.data.name)}; ${describeRestrictions(event.data.restrictions)}); this key stops at ${event.data.oldKeyExpiresAt}`,
        keyId: event.data.keyId,
      };
  }
};

/** Console access: invitations, passwords and sessions (stream holder-<account>); only hashes were recorded. */
export const describeHolderEvent = (event: HolderAccessEvent): string => {
  switch (event.type) {
    case "InvitationIssued":
      return `console invitation issued for ${event.data.email}, valid until ${event.data.expiresAt}`;
    case "InvitationUsed":
      return "console invitation used";
    case "InvitationRevoked":
      return `console invitation ${event.data.invitationId} revoked (${event.data.reason === "operator" ? "by the operator" : "a password was set"})`;
    case "PasswordSet":
      return "console password set";
    case "ConsoleSessionStarted":
      return `console session ${event.data.sessionId} started (signed in)`;
    case "ConsoleSessionEnded":
      return `console session ${event.data.sessionId} ended (${event.data.reason})`;
  }
};

/** The account's own templates (stream templates-<account>). */
export const describeTemplateEvent = (event: AccountTemplateEvent): string => {
  switch (event.type) {
    case "TemplateCreated":
      return `template ${JSON.stringify(event.data.name)} (${event.data.templateId}) created`;
    case "TemplateRevised":
      return `template ${JSON.stringify(event.data.name)} (${event.data.templateId}) revised to version ${event.data.version}`;
    case "TemplateDeleted":
      return `template ${JSON.stringify(event.data.name)} (${event.data.templateId}) deleted at version ${event.data.version}`;
  }
};

/** `units`: those of the request the event concerns (a document reserves one per page). */
export const describeQuotaEvent = (event: QuotaEvent, operation: string, units: number): string => {
  switch (event.type) {
    case "QuotaReserved":
      return units === 1 ? `${operation}: quota unit reserved` : `${operation}: ${units} quota units reserved`;
    case "QuotaCommitted":
      return units === 1 ? `${operation}: transformation counted` : `${operation}: ${units} transformations counted`;
    case "QuotaReleased":
      return `${operation}: reservation released (${event.data.reason})`;
    case "QuotaReservationRefused": {
      const asked = event.data.units === 1 ? "" : `${event.data.units} units asked, `;
      return `${operation}: refused, quota used up (${asked}${event.data.used}/${event.data.limit}${event.data.reserved === null ? "" : `, ${event.data.reserved} reserved`})`;
    }
  }
};

/** An asynchronous job (stream job-<jobId>); `accepted` is its JobAccepted, which names what every later event concerns. */
export const describeJobEvent = (event: JobEvent, accepted: JobAcceptedData): string => {
  const job = `job ${event.data.jobId} (${accepted.operation})`;
  const units = accepted.units === 1 ? "1 unit" : `${accepted.units} units`;
  switch (event.type) {
    case "JobAccepted":
      return `${job} accepted, ${units} reserved`;
    case "JobStarted":
      return `${job} started, attempt ${event.data.attempt} on ${event.data.worker}`;
    case "JobProgressed":
      return `${job} at ${event.data.done}/${event.data.total}`;
    case "JobSucceeded":
      return `${job} succeeded, ${units} charged`;
    case "JobFailed":
      return `${job} failed (${event.data.code}), ${units} released`;
  }
};

/** The account's webhook endpoints (stream webhooks-<account>); secrets were recorded sealed and are never shown. */
export const describeWebhookEndpointEvent = (event: WebhookEndpointEvent): string => {
  switch (event.type) {
    case "WebhookAdded":
      return `webhook ${event.data.endpointId} created for ${event.data.url} (${event.data.events.join(", ")})`;
    case "WebhookSecretRotated":
      return `webhook ${event.data.endpointId} secret rotated (the previous one signs until ${event.data.previousUntil})`;
    case "WebhookDisabled":
      return `webhook ${event.data.endpointId} disabled: ${event.data.reason}`;
    case "WebhookDeleted":
      return `webhook ${event.data.endpointId} deleted`;
  }
};
