import sharp from "sharp";
import { launchCardDesign } from "../../src/domain/account-templates/launch-card.ts";

/** Bodies for POST /api/templates: the launch card, and a plain text card for reading back. */
export const logoPng = async (): Promise<string> =>
  (
    await sharp({ create: { width: 120, height: 80, channels: 4, background: "#ffcc00" } })
      .png()
      .toBuffer()
  ).toString("base64");

/** The launch card with a logo (src/domain/account-templates/launch-card.ts); `background` in place of its dark blue. */
export const launchCard = (name: string, logo: string, background?: string) => launchCardDesign({ name, logo, background });

/** Black text in one box on a white canvas: what is outside the box must stay white. */
export const TEXT_BOX = { x: 100, y: 100, width: 400, height: 150 } as const;
export const textCard = (name: string, minSize = 12) => ({
  name,
  canvas: { width: 600, height: 350, background: "#ffffff", format: "png" },
  layers: [{ type: "text", name: "body", box: TEXT_BOX, font: "DejaVu Sans", color: "#000000", maxSize: 72, minSize, text: "x" }],
});
