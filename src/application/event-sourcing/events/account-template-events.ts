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

const Versioned = Schema.Struct({
  accountId: Schema.String,
  templateId: Schema.String,
  name: Schema.String,
  version: Schema.Number,
  design: DesignSchema,
  at: Schema.String,
});

/** The events of a `templates-<accountId>` stream, as stored. */
export const AccountTemplateEventSchema: Schema.Codec<AccountTemplateEvent, AccountTemplateEvent> = Schema.Union([
  Schema.Struct({ type: Schema.Literal("TemplateCreated"), data: Versioned }),
  Schema.Struct({ type: Schema.Literal("TemplateRevised"), data: Versioned }),
  Schema.Struct({
    type: Schema.Literal("TemplateDeleted"),
    data: Schema.Struct({ accountId: Schema.String, templateId: Schema.String, name: Schema.String, version: Schema.Number, at: Schema.String }),
  }),
]);

export const accountTemplateEventCodec = makeEventCodec(AccountTemplateEventSchema);

export const accountTemplatesStreamType: StreamType<AccountTemplateCommand, AccountTemplateEvent, AccountTemplatesState> = {
  decider: accountTemplateDecider,
  codec: accountTemplateEventCodec,
};
