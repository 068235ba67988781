import { describe, expect, it } from "vitest";
import { ERROR_CATALOG, isReplayable } from "../../src/adapters/http/errors/error-catalog.ts";

describe("the error catalog", () => {
  it("says per status whether an idempotent retry gets the response again: every entry of a status agrees", () => {
    const entries = Object.values(ERROR_CATALOG);
    for (const { status } of entries) {
      expect(new Set(entries.filter((entry) => entry.status === status).map((entry) => entry.replayable)).size, String(status)).toBe(1);
    }
    // What a request deterministically earns is kept; a busy key, a rate or quota refusal and a fault of ours are not.
    expect([200, 400, 401, 403, 404, 405, 410, 413, 415, 422].filter((status) => !isReplayable(status))).toEqual([]);
    expect([409, 429, 499, 500, 503, 504].filter(isReplayable)).toEqual([]);
  });
});
