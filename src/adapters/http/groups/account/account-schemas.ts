import { Schema } from "effect";
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
  key: Schema.Struct({ id: Text, name: Text, prefix: Text, createdAt: DateTime }),
});
