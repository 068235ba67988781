import sharp from "sharp";

/** Bodies for POST /api/templates: the launch card, and a plain text card for reading back. */
export const logoPng = async (): Promise<string> =>
  (
    await sharp({ create: { width: 120, height: 80, channels: 4, background: "#ffcc00" } })
      .png()
      .toBuffer()
  ).toString("base64");

export const launchCard = (name: string, logo: string, background = "#0b1f3a") => ({
  name,
  canvas: { width: 1200, height: 630, background, format: "png" },
  layers: [
    { type: "photo", box: { x: 0, y: 0, width: 600, height: 630 }, fit: "cover" },
    {
      type: "text",
      name: "title",
      box: { x: 640, y: 80, width: 520, height: 260 },
      font: "Noto Sans",
      weight: 700,
      color: "#ffffff",
      maxSize: 96,
      minSize: 20,
      align: "left",
      text: "Default headline",
    },
    { type: "image", name: "logo", box: { x: 1040, y: 520, width: 120, height: 80 }, image: logo },
    { type: "shape", box: { x: 620, y: 600, width: 560, height: 6 }, fill: "#ffcc00" },
  ],
});

/** Black text in one box on a white canvas: what is outside the box must stay white. */
export const TEXT_BOX = { x: 100, y: 100, width: 400, height: 150 } as const;
export const textCard = (name: string, minSize = 12) => ({
  name,
  canvas: { width: 600, height: 350, background: "#ffffff", format: "png" },
  layers: [{ type: "text", name: "body", box: TEXT_BOX, font: "DejaVu Sans", color: "#000000", maxSize: 72, minSize, text: "x" }],
});
