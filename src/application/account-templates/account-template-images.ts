import { Effect } from "effect";
import type { DesignLayout } from "../../domain/account-templates/account-template-design.ts";
import type { ValidatedImage } from "../../ports/engines/image.ts";
import { ImageInspector } from "../../ports/engines/image-inspector.ts";
import { ImageTooLarge, InvalidImage } from "../../ports/errors.ts";
import { ServiceSettings } from "../settings.ts";
import { decodeImagePayload } from "../transformations/image-payload.ts";

/**
 * The picture of each image layer, by its name: the call's (`images.<name>`) where it gives one,
 * else the design's own; decoded from base64 and accepted by the inspector like every client image
 * (no SVG, within the size and pixel limits), so a refusal names the field that carried it (after
 * `prefix`, a variant's path in the body).
 */
export const embeddedImages = (design: DesignLayout, overrides: Readonly<Record<string, string>>, prefix = "") =>
  Effect.gen(function* () {
    const settings = yield* ServiceSettings;
    const inspector = yield* ImageInspector;
    const images: Record<string, ValidatedImage> = {};
    for (const [index, layer] of design.layers.entries()) {
      if (layer.type !== "image") continue;
      const given = overrides[layer.name];
      const [field, payload] = given === undefined ? [`${prefix}layers.${index}.image`, layer.image] : [`images.${layer.name}`, given];
      const bytes = yield* decodeImagePayload(field, payload, settings.maxImageBytes);
      images[layer.name] = yield* inspector.inspect(bytes).pipe(
        Effect.catchTags({
          InvalidImage: ({ message }) => Effect.fail(new InvalidImage({ message: `${field}: ${message}` })),
          ImageTooLarge: ({ message }) => Effect.fail(new ImageTooLarge({ message: `${field}: ${message}` })),
        }),
      );
    }
    return images;
  });
