import type { Sharp } from "sharp";
import type { TemplateOutput } from "../../domain/template-catalog/template.ts";

/** How a finished image is written out in each output format, at the output's quality. */
export const encoder = (image: Sharp, output: Pick<TemplateOutput, "format" | "quality">): Sharp => {
  switch (output.format) {
    case "jpeg":
      // JPEG has no transparency: transparent areas (padding, cut-outs) become white, not black.
      return image.flatten({ background: "#ffffff" }).jpeg({ quality: output.quality });
    case "png":
      return image.png({ compressionLevel: 6 });
    case "webp":
      return image.webp({ quality: output.quality, alphaQuality: 100 });
    case "avif":
      // effort 2 of 9: AVIF at the default effort costs seconds per megapixel on two cores.
      return image.avif({ quality: output.quality, effort: 2 });
  }
};
