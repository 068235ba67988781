import { describe, expect, it } from "vitest";
import { billPage, RECEIPTS_SHOWN } from "../../src/adapters/console/bill-page.ts";
import type { ConsoleView } from "../../src/application/account/console-view.ts";

/** The bill page's rendering: long months cut to the newest receipts, and text from the log never becomes markup. */
const view = {
  accountId: "acc_1",
  email: "ada@example.com",
  quota: { period: "2026-11", used: 3, limit: 500, remaining: 497 },
} as unknown as ConsoleView;

const statementWith = (count: number, requestId = (i: number) => `req-${i}`) => ({
  period: "2026-11",
  checkpoint: "origin\n3\nroot=\n\n— origin sig\n",
  receipts: Array.from({ length: count }, (_, i) => ({
    receipt: {
      body: {
        v: 1 as const,
        logOrigin: "origin",
        kind: "charge" as const,
        account: "acc_1",
        requestId: requestId(i),
        operation: "generate" as const,
        units: 1,
        period: "2026-11",
        at: "2026-11-26T14:00:00.000Z",
        leafIndex: i,
      },
      keyId: "00",
      signature: "",
    },
    proof: [],
  })),
  totals: { units: count, charges: count, releases: 0, refunds: 0 },
  consistency: [],
});

const render = (statement: ReturnType<typeof statementWith>) => billPage({ view, csrfToken: "t", statement, verifierKey: "origin+00+AQ", from: "" });

describe("the console's bill page", () => {
  it(`shows every receipt up to ${RECEIPTS_SHOWN}, then the newest ${RECEIPTS_SHOWN} and says the download has them all`, () => {
    const rows = (markup: string) => markup.match(/data-testid="receipt-row"/g)?.length ?? 0;
    const full = render(statementWith(RECEIPTS_SHOWN));
    expect(rows(full)).toBe(RECEIPTS_SHOWN);
    expect(full).not.toContain("receipts-cut");
    const cut = render(statementWith(RECEIPTS_SHOWN + 7));
    expect(rows(cut)).toBe(RECEIPTS_SHOWN);
    expect(cut).toMatch(new RegExp(`The newest ${RECEIPTS_SHOWN} of ${RECEIPTS_SHOWN + 7} receipts`));
    expect(cut).not.toContain(">req-6<");
    expect(cut).toContain(">req-7<");
    expect(cut).toContain(`<dd data-testid="bill-units">${RECEIPTS_SHOWN + 7}</dd>`);
  });

  it("escapes what the log holds, and links the downloads for the month shown", () => {
    const markup = render(statementWith(1, () => `<script>alert(1)</script>`));
    expect(markup).not.toContain("<script>alert");
    expect(markup).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(markup).toContain('href="/console/bill/statement?period=2026-11"');
    expect(markup).toContain("statement-acc_1-2026-11.json");
  });
});
