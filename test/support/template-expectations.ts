import type { TemplateStep } from "../../src/domain/template-catalog/template.ts";

/** What a rendered template should look like, for the tests that render every template. */

/** sharp's metadata name for each output format. */
export const DECODER_NAME = { jpeg: "jpeg", png: "png", webp: "webp", avif: "heif" } as const;

/** The size a template's steps should produce from an input of this size (±1 px of rounding). */
export const expectedSize = (steps: ReadonlyArray<TemplateStep>, width: number, height: number) =>
  steps.reduce(
    (size, step) => {
      switch (step.op) {
        case "resize": {
          if (step.fit !== "inside") return { width: step.width, height: step.height };
          const scale = Math.min(step.width / size.width, step.height / size.height, step.enlarge === false ? 1 : Infinity);
          return { width: size.width * scale, height: size.height * scale };
        }
        case "extend":
          return { width: size.width + step.left + step.right, height: size.height + step.top + step.bottom };
        case "dropShadow":
          return { width: size.width + 2 * step.margin, height: size.height + 2 * step.margin };
        default:
          return size;
      }
    },
    { width, height },
  );
