import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { decodeImagePayload } from "../../src/application/transformations/image-payload.ts";

const decode = (payload: string, maxBytes = 1024) => Effect.runPromise(Effect.result(decodeImagePayload("image", payload, maxBytes)));
const bytes = Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 37) % 256));

describe("image payloads", () => {
  it("accepts base64 with or without padding, URL-safe base64, data URLs and MIME line breaks", async () => {
    const standard = bytes.toString("base64");
    const mime = standard.replace(/.{76}/g, "$&\r\n");
    for (const payload of [standard, standard.replaceAll("=", ""), bytes.toString("base64url"), `data:image/png;base64,${standard}`, mime]) {
      const result = await decode(payload);
      expect(result._tag === "Success" && Buffer.from(result.success).equals(bytes), payload.slice(0, 30)).toBe(true);
    }
  });

  it("refuses what is not base64, and what is empty, as an invalid image", async () => {
    for (const payload of ["", "data:image/png;base64,", "%%%%", `${bytes.toString("base64").slice(0, 40)}!${bytes.toString("base64").slice(41)}`, "abcde"]) {
      const result = await decode(payload);
      expect(result._tag === "Failure" && result.failure._tag, JSON.stringify(payload.slice(0, 20))).toBe("InvalidImage");
    }
  });

  it("refuses an image over the byte limit as too large, before decoding when the text alone shows it", async () => {
    const result = await decode(Buffer.alloc(2000).toString("base64"));
    expect(result._tag === "Failure" && result.failure._tag).toBe("ImageTooLarge");
    const justOver = await decode(Buffer.alloc(1025).toString("base64"));
    expect(justOver._tag === "Failure" && justOver.failure._tag).toBe("ImageTooLarge");
    const exactly = await decode(Buffer.alloc(1024).toString("base64"));
    expect(exactly._tag).toBe("Success");
  });
  it("decodes a multi-megabyte payload, and MIME base64 again without its line breaks, each in a turn of the event loop of its own", async () => {
    const large = Buffer.alloc(2 * 1024 * 1024, 7);
    for (const payload of [large.toString("base64"), large.toString("base64").replace(/.{76}/g, "$&\r\n")]) {
      const order: Array<string> = [];
      // Queued before the decode starts: it runs first only if the decode leaves the turn it began in.
      setImmediate(() => order.push("other work"));
      const result = await Effect.runPromise(Effect.result(decodeImagePayload("image", payload, 4 * 1024 * 1024))).finally(() => order.push("decoded"));
      expect(result._tag === "Success" && Buffer.from(result.success).equals(large)).toBe(true);
      expect(order).toEqual(["other work", "decoded"]);
    }
  });
});
