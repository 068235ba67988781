import { Effect, Layer } from "effect";
import { PersonSegmenter, type PersonSegmenterShape } from "../../src/ports/engines/person-segmenter.ts";
import { PORTRAIT_SUBJECT } from "./image-fixtures.ts";

/**
 * A stand-in for the real segmenter: the person is the ellipse where the portrait fixture draws
 * its figure. Counts its calls, so tests can see which templates asked for a mask.
 */
export const ellipsePersonSegmenter = () => {
  let calls = 0;
  const { cx, cy, rx, ry } = PORTRAIT_SUBJECT;
  const service: PersonSegmenterShape = {
    segment: (image) =>
      Effect.sync(() => {
        calls += 1;
        const { width, height } = image;
        const alpha = new Uint8Array(width * height);
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const dx = (x + 0.5 - cx * width) / (rx * width);
            const dy = (y + 0.5 - cy * height) / (ry * height);
            if (dx * dx + dy * dy <= 1) alpha[y * width + x] = 255;
          }
        }
        return { width, height, alpha };
      }),
  };
  return { service, layer: Layer.succeed(PersonSegmenter)(service), calls: () => calls };
};
