import type { PlanId } from "../plan.ts";
import { type Colour, outputBox, type OutputFormat, type Template, type TemplateStep } from "./template.ts";

export const ALL_PLANS: ReadonlyArray<PlanId> = ["free", "pro", "enterprise"];
/** Background templates run a segmentation model: the paid plans only. */
export const PAID_PLANS: ReadonlyArray<PlanId> = ["pro", "enterprise"];

export const define = (
  templateType: string,
  template: string,
  description: string,
  format: OutputFormat,
  quality: number,
  steps: ReadonlyArray<TemplateStep>,
  plans: ReadonlyArray<PlanId> = ALL_PLANS,
): Template => {
  const box = outputBox(steps);
  if (!box) throw new Error(`template ${templateType}/${template} has no resize step`);
  return { template, templateType, description, output: { ...box, format, quality }, plans, steps };
};

/** Crop to fill the box: faces first, else the most salient region. */
export const cover = (width: number, height: number): TemplateStep => ({ op: "resize", width, height, fit: "cover" });
/** Fit inside the box, never enlarging. */
export const inside = (width: number, height: number): TemplateStep => ({ op: "resize", width, height, fit: "inside", enlarge: false });
export const margin = (px: number, colour: Colour): TemplateStep => ({ op: "extend", top: px, right: px, bottom: px, left: px, colour });
export const contrast = (multiply: number): TemplateStep => ({ op: "linear", multiply, add: 128 * (1 - multiply) });
