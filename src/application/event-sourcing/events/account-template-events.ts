import { Schema } from "effect";
import {
  type AccountTemplateCommand,
  accountTemplateDecider,
  type AccountTemplateEvent,
  type AccountTemplatesState,
} from "../../../domain/account-templates/account-template.ts";
import { DesignSchema } from "../../account-templates/account-template-schema.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";
import { AccountId, At, described } from "./event-fields.ts";

const TemplateId = described(Schema.String, "the template's id (`tpl_…`)");
const TemplateName = described(Schema.String, "the template's name, unique in the account");
const Version = described(Schema.Number, "the template's version: 1 when created, one more each revision");
const Versioned = Schema.Struct({
  accountId: AccountId,
  templateId: TemplateId,
  name: TemplateName,
  version: Version,
  design: described(DesignSchema, "the design, as `PUT /api/account/templates/{name}` took it (docs/account-templates.md)"),
  at: At,
});

/** The events of a `templates-<accountId>` stream, as stored. */
export const AccountTemplateEventSchema: Schema.Codec<AccountTemplateEvent, AccountTemplateEvent> = Schema.Union([
  Schema.Struct({ type: Schema.Literal("TemplateCreated"), data: Versioned }).annotate({
    description: "An account template is made.",
    writtenBy: "CreateTemplate",
  }),
  Schema.Struct({ type: Schema.Literal("TemplateRevised"), data: Versioned }).annotate({
    description: "An account template's design is replaced.",
    writtenBy: "ReviseTemplate",
  }),
  Schema.Struct({
    type: Schema.Literal("TemplateDeleted"),
    data: Schema.Struct({ accountId: AccountId, templateId: TemplateId, name: TemplateName, version: described(Version, "the version deleted"), at: At }),
  }).annotate({ description: "An account template is deleted; its name is free again.", writtenBy: "DeleteTemplate" }),
]);

export const accountTemplateEventCodec = makeEventCodec(AccountTemplateEventSchema);

export const accountTemplatesStreamType: StreamType<AccountTemplateCommand, AccountTemplateEvent, AccountTemplatesState> = {
  decider: accountTemplateDecider,
  codec: accountTemplateEventCodec,
};
