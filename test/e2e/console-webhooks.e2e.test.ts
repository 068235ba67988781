import { Effect } from "effect";
import type { Browser } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { handleCommand } from "../../src/application/event-sourcing/command-handler.ts";
import { jobStreamType } from "../../src/application/event-sourcing/events/job-events.ts";
import { coreLayer } from "../../src/composition.ts";
import { loadConfig } from "../../src/config.ts";
import { jobStream } from "../../src/domain/job.ts";
import { launchChromium, seriousAxeViolations } from "../support/browser.ts";
import { itsctl, type ServiceProcess, startService } from "../support/service-process.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * The console's Webhooks page in Debian's chromium against the real service process: add an
 * endpoint (its secret shown once), see its delivery, resend it (the same webhook-id), delete it.
 */
const PASSWORD = "correct horse battery staple";
let service: ServiceProcess;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  [service, browser] = await Promise.all([startService({ env: { WEBHOOK_ALLOW_INSECURE_TARGETS: "true" } }), launchChromium()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await receiver?.close();
});

/** A job of the account ended, appended to the service's own store (SQLite under its DATA_DIR) from this process. */
const jobSucceeded = (accountId: string, jobId: string) => {
  const config = loadConfig(service.env, 1);
  const context = { actor: { kind: "service", task: "console webhook e2e" } } as const;
  const stream = jobStream(jobId);
  const now = () => new Date();
  return Effect.runPromise(
    Effect.gen(function* () {
      const accept = {
        type: "AcceptJob",
        jobId,
        accountId,
        keyId: "k",
        operation: "generate",
        requestId: `req-${jobId}`,
        units: 1,
        inputRef: "in",
        inputSha256: "0".repeat(64),
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        now: now(),
      } as const;
      yield* handleCommand(jobStreamType, stream, accept, context);
      yield* handleCommand(jobStreamType, stream, { type: "StartJob", worker: "w", leaseUntil: new Date(Date.now() + 60_000), now: now() }, context);
      yield* handleCommand(jobStreamType, stream, { type: "SucceedJob", worker: "w", resultRef: "r", resultSha256: "1".repeat(64), now: now() }, context);
    }).pipe(Effect.provide(coreLayer(config, loadServerSecrets(config)))),
  );
};

describe("the console's Webhooks page", () => {
  it("adds an endpoint with its secret shown once, lists its delivery, resends it, deletes it", async () => {
    const opened = await itsctl(service.env, [
      "account",
      "open",
      "--email",
      `hooks-${Date.now()}@example.com`,
      "--name",
      "Hook Holder",
      "--plan",
      "pro",
      "--json",
    ]);
    const accountId = JSON.parse(opened.stdout).id as string;
    const invited = await itsctl(service.env, ["account", "invite", "--account", accountId, "--json"]);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const base = service.client.baseUrl;
    await page.goto(base + new URL((JSON.parse(invited.stdout) as { url: string }).url).pathname);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Confirm password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.waitForURL(`${base}/console`);

    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("URL (https)").fill("https://127.0.0.1.invalid/");
    await page.getByRole("button", { name: "Add webhook" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("may not receive webhooks");

    await page.getByLabel("URL (https)").fill(receiver.url("/console"));
    await page.getByRole("button", { name: "Add webhook" }).click();
    const secret = (await page.getByTestId("new-webhook-secret").locator("code").nth(1).textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.goto(`${base}/console/webhooks`);
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByTestId("webhook").count()).toBe(1);

    await jobSucceeded(accountId, "console-job");
    const [first] = await receiver.waitFor(1);
    expect(new Webhook(secret).verify(first!.body, first!.headers as Record<string, string>)).toMatchObject({ type: "job.succeeded" });
    for (let i = 0; i < 50 && (await page.getByTestId("delivery-row").count()) === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await page.reload();
    }
    const row = page.getByTestId("delivery-row");
    expect(await row.textContent()).toContain("job.succeeded");
    await row.getByRole("button", { name: "Resend" }).click();
    const [, second] = await receiver.waitFor(2);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);

    await page.getByRole("button", { name: /Delete webhook/ }).click();
    await page.waitForURL(`${base}/console/webhooks`);
    expect(await page.getByTestId("webhook").count()).toBe(0);
    await context.close();
  }, 60_000);
});
