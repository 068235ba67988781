/** The plan catalog: what each plan may do, how much, and how fast. */
export const PLAN_IDS = ["free", "pro", "enterprise"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const FEATURES = ["generate", "ocr", "virtual-tryon"] as const;
export type Feature = (typeof FEATURES)[number];

export interface RatePolicy {
  /** Bucket capacity: the burst a key may spend at once. */
  readonly burst: number;
  /** Steady refill, tokens per minute. */
  readonly perMinute: number;
}

export interface Plan {
  readonly id: PlanId;
  readonly features: ReadonlyArray<Feature>;
  /** Transformations per calendar month (UTC); null means unlimited. */
  readonly monthlyTransformations: number | null;
  readonly rate: RatePolicy;
  /** Templates of the account's own it may keep at once; null means unlimited. */
  readonly accountTemplates: number | null;
}

const STANDARD_RATE: RatePolicy = { burst: 15, perMinute: 10 };

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  free: { id: "free", features: ["generate", "ocr"], monthlyTransformations: 50, rate: STANDARD_RATE, accountTemplates: 3 },
  pro: { id: "pro", features: ["generate", "ocr", "virtual-tryon"], monthlyTransformations: 500, rate: STANDARD_RATE, accountTemplates: 50 },
  enterprise: {
    id: "enterprise",
    features: ["generate", "ocr", "virtual-tryon"],
    monthlyTransformations: null,
    rate: STANDARD_RATE,
    accountTemplates: null,
  },
};

export const planIncludes = (plan: PlanId, feature: Feature): boolean => PLANS[plan].features.includes(feature);
