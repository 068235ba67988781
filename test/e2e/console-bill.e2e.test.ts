import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, seriousAxeViolations } from "../support/browser.ts";
import { itsctl, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 28 in the console: the signed-in holder's bill (receipts, totals, checkpoint, verifier key)
 * in Debian's chromium against the real service; the statement and a checkpoint downloaded through
 * the browser are checked with the customer's verifier, verifier/verify-bill.mjs, as a customer would.
 */
const run = promisify(execFile);
const VERIFY_BILL = path.resolve(import.meta.dirname, "../../verifier/verify-bill.mjs");
const PASSWORD = "correct horse battery staple";
/** CONSOLE_SCREENSHOTS=1 also writes docs/console-bill.png, as console.e2e.test.ts does its own. */
const SCREENSHOTS = process.env["CONSOLE_SCREENSHOTS"] === "1" ? path.resolve(import.meta.dirname, "../../docs") : undefined;
const screenshot = async (page: Page, name: string) => {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `console-${name}.png`), fullPage: true });
};

let service: ServiceProcess;
let browser: Browser;
let dir: string;
beforeAll(async () => {
  [service, browser] = await Promise.all([startService(), launchChromium()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "console-bill-"));
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const base = () => service.client.baseUrl;

/** Clicks a download link and keeps the file: its suggested name and where it was saved. */
const download = async (page: Page, name: string | RegExp) => {
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name }).click()]);
  const saved = path.join(dir, file.suggestedFilename());
  await file.saveAs(saved);
  return { name: file.suggestedFilename(), saved, text: fs.readFileSync(saved, "utf8") };
};

const verifyBill = async (key: string, statement: string, checkpoints: ReadonlyArray<string> = []) => {
  try {
    const { stdout } = await run(process.execPath, [
      VERIFY_BILL,
      "--key",
      key,
      "--statement",
      statement,
      ...checkpoints.flatMap((file) => ["--checkpoint", file]),
    ]);
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout + failed.stderr };
  }
};

describe("the bill in the account console", () => {
  it("shows the month's receipts and totals, the checkpoint and key; the downloaded statement passes verify-bill, with a saved checkpoint too", async () => {
    const { accountId, keys } = await provisionAccount(service.env, "pro");
    const apiKey = keys[0]!.key;
    const image = (
      await sharp({ create: { width: 32, height: 32, channels: 3, background: "#3a6" } })
        .png()
        .toBuffer()
    ).toString("base64");
    const charge = async () => {
      const reply = await service.client.request("POST", "/api/generate", { key: apiKey, body: { image, template: "grayscale", templateType: "filter" } });
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      return reply.json.data.receipt.body as { requestId: string; period: string; units: number };
    };
    const charged = [await charge(), await charge()];
    const period = charged[0]!.period;

    const invited = await itsctl(service.env, ["account", "invite", "--account", accountId, "--json"]);
    expect(invited.code).toBe(0);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(base() + new URL((JSON.parse(invited.stdout) as { url: string }).url).pathname);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Confirm password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.waitForURL(`${base()}/console`);
    expect(await page.getByTestId("quota").textContent()).toContain("2 used of 500");

    await page.getByRole("link", { name: "Bill" }).click();
    await page.waitForURL(`${base()}/console/bill`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(`Bill for ${period}`);
    const rows = await page.getByTestId("receipt-row").allTextContents();
    expect(rows).toHaveLength(2);
    for (const [index, receipt] of charged.entries()) expect(rows[index]).toMatch(new RegExp(`${receipt.requestId}.*generate.*charge.*1`, "s"));
    // The totals are the overview's usage: the log and the quota ledger agree.
    expect(await page.getByTestId("bill-units").textContent()).toBe("2");
    expect(await page.getByTestId("bill-charges").textContent()).toBe("2");
    expect(await page.getByTestId("bill-quota-used").textContent()).toBe("2");
    const shownCheckpoint = (await page.getByTestId("checkpoint").textContent())!;
    expect(shownCheckpoint).toMatch(/^[^\n]+\n\d+\n[\w+/]{43}=\n\n— \S+ \S+\n$/);
    const keyLine = (await service.client.request("GET", "/api/ledger/key")).body.toString("utf8");
    expect(await page.getByTestId("verifier-key").textContent()).toBe(keyLine.trim());
    expect(await page.getByText("verifier/verify-bill.mjs").count()).toBeGreaterThan(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "bill");

    // The statement as downloaded is what the verifier reads: exit 0, both receipts, 2 units.
    const keyFile = path.join(dir, "ledger-key.txt");
    fs.writeFileSync(keyFile, keyLine);
    const statement = await download(page, "Download statement (JSON)");
    expect(statement.name).toBe(`statement-${accountId}-${period}.json`);
    expect(JSON.parse(statement.text)).toMatchObject({ period, totals: { units: 2, charges: 2 }, consistency: [] });
    const verified = await verifyBill(keyFile, statement.saved);
    expect(verified, verified.stdout).toMatchObject({ code: 0 });
    expect(verified.stdout).toContain(`OK 2 receipts of ${period} in the log, 2 units charged`);

    // A saved checkpoint, a charge after it, and a statement asked for with its size: the log extends it.
    const checkpoint = await download(page, "Save the current checkpoint");
    const size = Number(checkpoint.text.split("\n")[1]);
    expect(checkpoint.name).toBe(`checkpoint-${size}.txt`);
    await charge();
    await page.getByLabel(/Sizes of checkpoints you saved/).fill(String(size));
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/\/console\/bill\?period=\d{4}-\d{2}&from=\d+$/);
    expect(await page.getByTestId("receipt-row").count()).toBe(3);
    const later = await download(page, "Download statement (JSON)");
    expect(JSON.parse(later.text).consistency).toEqual([{ from: size, hashes: expect.any(Array) }]);
    const extended = await verifyBill(keyFile, later.saved, [checkpoint.saved]);
    expect(extended, extended.stdout).toMatchObject({ code: 0 });
    expect(extended.stdout).toContain("3 units charged; consistent with 1 saved checkpoint(s)");

    // A tampered statement fails: the verifier is not a rubber stamp.
    const tampered = JSON.parse(later.text);
    tampered.receipts[0].receipt.body.units = 0;
    fs.writeFileSync(path.join(dir, "tampered.json"), JSON.stringify(tampered));
    expect((await verifyBill(keyFile, path.join(dir, "tampered.json"))).code).toBe(1);

    // Another month: no receipts; a month that is no month: 422 with the reason, nothing else shown wrong.
    await page.goto(`${base()}/console/bill?period=2020-01`);
    expect(await page.getByText("No receipts in 2020-01.").count()).toBe(1);
    expect(await page.getByTestId("bill-units").textContent()).toBe("0");
    const refused = await page.goto(`${base()}/console/bill?period=2026-13`);
    expect(refused!.status()).toBe(422);
    expect(await page.getByRole("alert").textContent()).toContain("YYYY-MM");
    const refusedDownload = await page.goto(`${base()}/console/bill/statement?period=26-1`);
    expect(refusedDownload!.status()).toBe(422);

    // At a phone's width without JavaScript the page fits and both downloads are plain links.
    const phone = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 390, height: 800 }, javaScriptEnabled: false });
    await phone.addCookies(await context.cookies());
    const small = await phone.newPage();
    await small.goto(`${base()}/console/bill`);
    expect(await small.getByTestId("receipt-row").count()).toBe(3);
    expect(await small.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth")).toBeLessThanOrEqual(0);
    expect((await download(small, "Save the current checkpoint")).name).toMatch(/^checkpoint-\d+\.txt$/);
    await phone.close();

    // Signed out, none of it is served.
    const anonymous = await service.client.request("GET", "/console/bill/statement");
    expect(anonymous.status).toBe(303);
    await context.close();
  });
});
