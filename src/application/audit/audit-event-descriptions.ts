import type { AccountEvent } from "../../domain/account.ts";
import type { AccountTemplateEvent } from "../../domain/account-templates/account-template.ts";
import { describeRestrictions } from "../../domain/describe-restrictions.ts";
import type { HolderAccessEvent } from "../../domain/holder-access.ts";
import type { QuotaEvent } from "../../domain/quota-ledger.ts";
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
