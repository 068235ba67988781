import { type Design, type DesignIssue, TEMPLATE_FONTS } from "./account-template-design.ts";

const known: ReadonlySet<string> = new Set(TEMPLATE_FONTS);

/**
 * Text layers, in the default layout and every variant, that name a family the service cannot draw
 * now (left out at start: its files are missing or do not draw a script it claims). A family the
 * service does not know at all is designIssues' "unknown font"; this one exists but is not here.
 */
export const unavailableFontIssues = (design: Design, available: ReadonlySet<string>): ReadonlyArray<DesignIssue> => {
  const layouts = [["", design] as const, ...Object.entries(design.variants ?? {}).map(([name, variant]) => [`variants.${name}.`, variant] as const)];
  return layouts.flatMap(([prefix, layout]) =>
    layout.layers.flatMap((layer, index) =>
      layer.type === "text" && known.has(layer.font) && !available.has(layer.font)
        ? [{ path: `${prefix}layers.${index}.font`, message: `"${layer.font}" is not available on this service now; available: ${[...available].join(", ")}` }]
        : [],
    ),
  );
};
