import { echo, echoJson } from "./echo.ts";

/**
 * The style settings of a virtual try-on: every accepted value, what it does, and the default
 * applied when a field is left out. `data.settings` echoes the resolved settings.
 */
export const TRYON_SETTING_VALUES = {
  poseStyle: ["original", "mirrored"],
  lightingStyle: ["original", "studio", "warm", "cool", "dramatic"],
  fitPreference: ["tight", "regular", "loose"],
  backgroundStyle: ["original", "white", "studio", "blur", "transparent"],
  realismLevel: ["draft", "standard", "high"],
} as const;

export type TryOnSettingName = keyof typeof TRYON_SETTING_VALUES;

export type TryOnSettings = { readonly [K in TryOnSettingName]: (typeof TRYON_SETTING_VALUES)[K][number] };

export const TRYON_SETTING_NAMES = Object.keys(TRYON_SETTING_VALUES) as ReadonlyArray<TryOnSettingName>;

export const DEFAULT_TRYON_SETTINGS: TryOnSettings = {
  poseStyle: "original",
  lightingStyle: "original",
  fitPreference: "regular",
  backgroundStyle: "original",
  realismLevel: "standard",
};

/** What each value does, for the API documentation. */
export const TRYON_SETTING_DESCRIPTIONS: { readonly [K in TryOnSettingName]: Readonly<Record<TryOnSettings[K], string>> } = {
  poseStyle: {
    original: "the person as photographed",
    mirrored: "the whole result flipped left-right (the engine cannot re-pose a body)",
  },
  lightingStyle: {
    original: "the photo's own light, untouched outside the garment",
    studio: "brighter, slightly lifted shadows, neutral colour",
    warm: "a warm (amber) colour balance",
    cool: "a cool (blue) colour balance",
    dramatic: "higher contrast with a darkened vignette",
  },
  fitPreference: {
    tight: "garment narrowed to hug the torso",
    regular: "garment sized to the shoulders and hips",
    loose: "garment widened and lengthened",
  },
  backgroundStyle: {
    original: "the photo's background, unchanged",
    white: "plain white background",
    studio: "light grey studio backdrop with a soft gradient",
    blur: "the photo's background, blurred",
    transparent: "transparent background (PNG with alpha)",
  },
  realismLevel: {
    draft: "the garment's own colours, unlit, with hard edges (fastest)",
    standard: "the garment lit by the photo's broad light (body-scale shading), soft edges; the clothes underneath never show through",
    high: "the garment lit by the photo's light down to the body's larger folds, softer edges; the clothes underneath never show through",
  },
};

export interface SettingsProblem {
  readonly path: string;
  readonly message: string;
}

export type SettingsResolution =
  { readonly ok: true; readonly settings: TryOnSettings } | { readonly ok: false; readonly problems: ReadonlyArray<SettingsProblem> };

const isAllowed = <K extends TryOnSettingName>(name: K, value: unknown): value is TryOnSettings[K] =>
  (TRYON_SETTING_VALUES[name] as ReadonlyArray<unknown>).includes(value);

const isSettingName = (name: string): name is TryOnSettingName => Object.hasOwn(TRYON_SETTING_VALUES, name);

/**
 * Resolves client settings (absent, or an object of strings) against the allowed values:
 * defaults fill the gaps; every unknown field or value is reported with the allowed ones.
 */
export const resolveTryOnSettings = (raw: unknown): SettingsResolution => {
  if (raw === undefined || raw === null) return { ok: true, settings: DEFAULT_TRYON_SETTINGS };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { ok: false, problems: [{ path: "settings", message: "settings must be an object" }] };
  }
  const problems: Array<SettingsProblem> = [];
  const settings: Record<string, unknown> = { ...DEFAULT_TRYON_SETTINGS };
  for (const [name, value] of Object.entries(raw)) {
    if (!isSettingName(name)) {
      problems.push({ path: `settings.${echo(name)}`, message: `unknown setting; allowed settings: ${TRYON_SETTING_NAMES.join(", ")}` });
    } else if (!isAllowed(name, value)) {
      problems.push({
        path: `settings.${name}`,
        message: `${echoJson(value)} is not allowed; allowed values: ${TRYON_SETTING_VALUES[name].join(", ")}`,
      });
    } else {
      settings[name] = value;
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, settings: settings as unknown as TryOnSettings };
};
