import { Schema } from "effect";
import { KEY_SCOPES } from "../../../../domain/key-restrictions.ts";
import { FEATURES, PLAN_IDS } from "../../../../domain/plan.ts";

/** The `data` of the calling account's profile. */
const Text = Schema.String;
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const DateTime = Schema.String.annotate({ format: "date-time" });

const NullableCount = Schema.NullOr(Count).annotate({ description: "null when unlimited" });

export const ProfileData = Schema.Struct({
  id: Text,
  email: Text,
  name: Text,
  plan: Schema.Literals(PLAN_IDS),
  features: Schema.Array(Schema.Literals(FEATURES)),
  quota: Schema.Struct({
    limit: NullableCount,
    used: Count,
    remaining: NullableCount,
    period: Text.annotate({ description: "YYYY-MM, UTC" }),
    resetsAt: DateTime,
  }),
  rateLimit: Schema.Struct({ perMinute: Count, burst: Count }),
  key: Schema.Struct({
    id: Text,
    name: Text,
    prefix: Text,
    createdAt: DateTime,
    scopes: Schema.NullOr(Schema.Array(Schema.Literals(KEY_SCOPES))).annotate({ description: "the operations this key may call; null: every one" }),
    expiresAt: Schema.NullOr(DateTime).annotate({ description: "when this key stops working; null: never" }),
    allowedIps: Schema.NullOr(Schema.Array(Text)).annotate({ description: "the CIDR ranges this key may be used from; null: any address" }),
    monthlyLimit: NullableCount.annotate({ description: "the most units this key may spend in a month; null: only the account's quota" }),
    usage: Schema.Struct({ used: Count.annotate({ description: "units this key spent this month (its own, within quota.used)" }) }),
  }),
  receipts: Schema.Struct({
    status: Schema.Literals(["published", "withheld"]).annotate({
      description:
        "published: the receipts log agrees with the event store and backs quota.used; withheld: the service found its store edited " +
        "(the log differs from it), publishes no receipt, checkpoint or statement, and the quota shown is not backed by receipts",
    }),
  }),
});
