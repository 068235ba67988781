import { createHash } from "node:crypto";
import type { IncrementalHash } from "../../application/event-sourcing/event-checksum.ts";

export const nodeSha256 = (): IncrementalHash => {
  const hash = createHash("sha256");
  return {
    update: (text) => {
      hash.update(text, "utf8");
    },
    digest: () => hash.digest("hex"),
  };
};
