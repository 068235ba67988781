import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, seriousAxeViolations } from "../support/browser.ts";
import { photoPng } from "../support/image-fixtures.ts";
import { itsctl, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 12: the account console in a real browser (Debian's chromium) against the real service
 * process, with the real CLI. CONSOLE_SCREENSHOTS=1 also writes docs/console-*.png.
 */
let service: ServiceProcess;
let browser: Browser;
const PASSWORD = "correct horse battery staple";
/** The default key cap (docs/api-decisions.md: "default cap 20"). */
const MAX_KEYS = 20;
const SCREENSHOTS = process.env["CONSOLE_SCREENSHOTS"] === "1" ? path.resolve(import.meta.dirname, "../../docs") : undefined;

beforeAll(async () => {
  [service, browser] = await Promise.all([startService(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const base = () => service.client.baseUrl;

const openAccount = async (plan: "free" | "pro") => {
  const email = `holder-${plan}-${Date.now()}@example.com`;
  const opened = await itsctl(service.env, ["account", "open", "--email", email, "--name", "Ada Holder", "--plan", plan, "--json"]);
  expect(opened.code).toBe(0);
  return { accountId: JSON.parse(opened.stdout).id as string, email };
};

/** The invitation's path: the CLI's URL names the configured port, which is 0 (any free one) in tests. */
const invitePath = async (accountId: string) => {
  const invited = await itsctl(service.env, ["account", "invite", "--account", accountId, "--json"]);
  expect(invited.code).toBe(0);
  const { url, expiresAt } = JSON.parse(invited.stdout) as { url: string; expiresAt: string };
  expect(new Date(expiresAt).getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
  return new URL(url).pathname;
};

const newPage = async (
  options: { readonly width?: number; readonly javaScript?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; cspViolations: Array<string> }> => {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: { width: options.width ?? 1100, height: 900 },
    javaScriptEnabled: options.javaScript ?? true,
  });
  const page = await context.newPage();
  const cspViolations: Array<string> = [];
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) cspViolations.push(message.text());
  });
  return { context, page, cspViolations };
};

const screenshot = async (page: Page, name: string) => {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `console-${name}.png`), fullPage: true });
};

/** How far the page reaches beyond the viewport's width (0: no sideways scrolling). */
const overflowX = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");

const profile = (key: string) => service.client.request("GET", "/api/user/profile", { key });

/** A form POST from outside the browser: the session cookie and fields as given. */
const postForm = (pathname: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  service.client.request("POST", pathname, {
    body: new URLSearchParams(fields).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
  });

const keyIds = async (accountId: string) =>
  (JSON.parse((await itsctl(service.env, ["key", "list", "--account", accountId, "--json"])).stdout) as Array<{ id: string }>).map((key) => key.id);

/** A session cookie and its CSRF token, from an invitation, without a browser. */
const signedInByForm = async (accountId: string) => {
  const set = await postForm(await invitePath(accountId), { password: PASSWORD, confirm: PASSWORD });
  expect(set.status).toBe(303);
  const session = String(set.headers["set-cookie"]).split(";")[0]!;
  const overview = await service.client.request("GET", "/console", { headers: { Cookie: session } });
  return { session, csrf: /name="csrf" value="([^"]+)"/.exec(overview.body.toString())![1]! };
};

describe("the account console", () => {
  it("invite → set password → overview → make a key → it works → shown once → delete → 401 within 1 s → sign out", async () => {
    const { accountId, email } = await openAccount("pro");
    const { context, page, cspViolations } = await newPage();

    await page.goto(base() + (await invitePath(accountId)));
    await screenshot(page, "set-password");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Confirm password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.waitForURL(`${base()}/console`);

    const cookie = (await context.cookies()).find((c) => c.name === "__Host-its-console-session");
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: "Strict", path: "/" });
    // The cookie ends with the session: 12 hours from now.
    expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(11.9 * 3600_000);
    expect(cookie!.expires * 1000 - Date.now()).toBeLessThanOrEqual(12 * 3600_000);
    expect(await page.getByTestId("account-email").textContent()).toBe(email);
    expect(await page.getByTestId("plan").textContent()).toBe("pro");
    expect(await page.getByTestId("features").textContent()).toBe("generate, ocr, virtual-tryon");
    expect(await page.getByTestId("quota").textContent()).toContain("0 used of 500, 500 remaining");
    expect(await page.locator("meter").getAttribute("max")).toBe("500");
    expect(await page.getByRole("img", { name: /Successful transformations per day/ }).count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("button", { name: "Generate new key" }).click();
    await page.getByLabel("Key name").fill("laptop");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForURL(`${base()}/console/keys`);
    const secret = (await page.getByTestId("new-key-secret").textContent())!.trim();
    expect(secret).toMatch(/^its_[a-z0-9]{16}_[\w-]{43,}$/);
    expect(await page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "new-key");

    const used = await profile(secret);
    expect(used.status).toBe(200);
    expect(used.json.data).toMatchObject({ id: accountId, key: { name: "laptop" } });
    const keyId = used.json.data.key.id as string;
    expect(await keyIds(accountId)).toEqual([keyId]);

    // A transformation made with it shows in the usage the console reads (the usage projection).
    const image = (await photoPng(96, 64)).toString("base64");
    const generated = await service.client.request("POST", "/api/generate", {
      key: secret,
      body: { image, template: "instagram-square", templateType: "social" },
    });
    expect(generated.status).toBe(200);
    // The projection follows the store a moment behind: the commit may still be on its way.
    let listed = "";
    for (const started = Date.now(); !listed.includes("succeeded") && Date.now() - started < 5000;) {
      await page.goto(`${base()}/console/requests`);
      listed = (await page.getByTestId("request-row").allTextContents()).join("\n");
    }
    expect(listed).toMatch(/generate.*laptop.*succeeded/s);
    await screenshot(page, "requests");
    await page.goto(`${base()}/console`);
    expect(await page.getByTestId("quota").textContent()).toContain("1 used of 500, 499 remaining");
    expect(await page.getByRole("img", { name: /Successful transformations per day in \d{4}-\d{2}: 1 in all/ }).count()).toBe(1);
    await screenshot(page, "overview");
    await page.goto(`${base()}/console/keys`);

    await page.reload();
    expect(await page.getByTestId("new-key-secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret.slice(22));
    const row = page.getByTestId("key-row").filter({ hasText: "laptop" });
    expect(await row.textContent()).toContain(`its_${keyId}`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "keys");

    await row.getByRole("button", { name: /^Delete/ }).click();
    await page.getByRole("button", { name: "Delete key" }).click();
    await page.waitForURL(`${base()}/console/keys`);
    const deletedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - deletedAt < 1000) status = (await profile(secret)).status;
    expect(status).toBe(401);
    expect(Date.now() - deletedAt).toBeLessThan(1000);
    expect(await page.getByTestId("key-row").count()).toBe(0);
    expect(await keyIds(accountId)).toEqual([]);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${base()}/console/sign-in`);
    await page.goto(`${base()}/console/keys`);
    expect(page.url()).toBe(`${base()}/console/sign-in`);

    // Signing in again with the password set above.
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base()}/console`);
    const rotated = (await context.cookies()).find((c) => c.name === "__Host-its-console-session");
    expect(rotated?.value).not.toBe(cookie?.value);
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it("acts on no POST without a session and its token: cross-site, missing or wrong token", async () => {
    const { accountId, email } = await openAccount("free");
    const invitation = await invitePath(accountId);
    const set = await postForm(invitation, { password: PASSWORD, confirm: PASSWORD });
    expect(set.status).toBe(303);
    const session = String(set.headers["set-cookie"]).split(";")[0]!;
    const overview = await service.client.request("GET", "/console", { headers: { Cookie: session } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(overview.body.toString())![1]!;
    expect(overview.headers["content-security-policy"]).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );

    const attempts = [
      postForm("/console/keys", { name: "evil" }, { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" }),
      postForm("/console/keys", { name: "evil" }),
      postForm("/console/keys", { name: "evil" }, { Cookie: session }),
      postForm("/console/keys", { name: "evil", csrf: csrf.slice(0, -2) + "AA" }, { Cookie: session }),
      postForm("/console/keys", { name: "evil", csrf }, { Cookie: session, Origin: "https://evil.example" }),
      postForm("/console/keys", { name: "evil", csrf }, { Cookie: session, "Sec-Fetch-Site": "cross-site" }),
    ];
    for (const reply of await Promise.all(attempts)) expect(reply.status).toBe(403);
    expect(await keyIds(accountId)).toEqual([]);

    // The same request with the session and its token does act: the refusals above were for what they lacked.
    const made = await postForm("/console/keys", { name: "mine", csrf }, { Cookie: session });
    expect(made.status).toBe(303);
    expect(await keyIds(accountId)).toHaveLength(1);

    // The invitation was used up; the password sign-in works and the old link does not.
    expect((await postForm(invitation, { password: PASSWORD, confirm: PASSWORD })).status).toBe(404);
    // Signing in rotates the session: the browser's old session ends, a new one with a new secret starts.
    const signedIn = await postForm("/console/sign-in", { email, password: PASSWORD }, { Cookie: session });
    expect(signedIn.status).toBe(303);
    const rotated = String(signedIn.headers["set-cookie"]).split(";")[0]!;
    expect(rotated.split(".")[1]).not.toBe(session.split(".")[1]);
    const withOld = await service.client.request("GET", "/console/keys", { headers: { Cookie: session } });
    expect({ status: withOld.status, location: withOld.headers["location"] }).toEqual({ status: 303, location: "/console/sign-in" });
    expect((await service.client.request("GET", "/console/keys", { headers: { Cookie: rotated } })).status).toBe(200);

    // Every change is an event the audit replays, and no event holds a secret: only hashes.
    const audit = await itsctl(service.env, ["audit", "--account", accountId, "--json"]);
    const history = (JSON.parse(audit.stdout) as { history: Array<{ type: string; actor: { kind: string } | null }> }).history;
    expect(history.map((entry) => entry.type)).toEqual(
      expect.arrayContaining(["InvitationIssued", "InvitationUsed", "PasswordSet", "ConsoleSessionStarted", "ApiKeyIssued"]),
    );
    // Who acted: the operator invited; the holder, signed in to the console, made the key.
    expect(history.find((entry) => entry.type === "InvitationIssued")?.actor?.kind).toBe("operator");
    expect(history.find((entry) => entry.type === "ApiKeyIssued")?.actor).toMatchObject({ kind: "console", accountId });
    const db = new DatabaseSync(path.join(service.dataDir, "events.sqlite"), { readOnly: true });
    const recorded = JSON.stringify(db.prepare("SELECT * FROM events").all());
    db.close();
    for (const secret of [PASSWORD, invitation.split(".").at(-1)!, session.split(".").at(-1)!]) expect(recorded).not.toContain(secret);
    expect(recorded).toContain("$argon2id$");
  });

  it("works without JavaScript at a phone's width: every action a plain form, nothing scrolls sideways", async () => {
    const { accountId, email } = await openAccount("free");
    const { context, page, cspViolations } = await newPage({ width: 390, javaScript: false });
    /** No page reaches past the phone's width; `picture`: docs/console.md shows this one. */
    const fits = async (name: string, picture = false) => {
      expect(await overflowX(page), name).toBeLessThanOrEqual(0);
      if (picture) await screenshot(page, `phone-${name}`);
    };

    await page.goto(base() + (await invitePath(accountId)));
    await fits("set-password");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Confirm password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.waitForURL(`${base()}/console`);
    expect(await page.getByTestId("account-email").textContent()).toBe(email);
    await fits("overview");

    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("button", { name: "Generate new key" }).click();
    await fits("generate");
    await page.getByLabel("Key name").fill("phone");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForURL(`${base()}/console/keys`);
    const secret = (await page.getByTestId("new-key-secret").textContent())!.trim();
    expect((await profile(secret)).status).toBe(200);
    // The copy button is the script's: without it, the key is still there to select and copy.
    expect(await page.getByRole("button", { name: "Copy" }).isVisible()).toBe(false);
    await fits("new-key", true);

    // Each key's row fits the screen, its Delete button included.
    const deleteBox = await page
      .getByTestId("key-row")
      .getByRole("button", { name: /^Delete/ })
      .boundingBox();
    expect(deleteBox!.x + deleteBox!.width).toBeLessThanOrEqual(390);
    // A transformation, so the requests page and the chart have a row to lay out.
    const image = (await photoPng(96, 64)).toString("base64");
    const generated = await service.client.request("POST", "/api/generate", {
      key: secret,
      body: { image, template: "instagram-square", templateType: "social" },
    });
    expect(generated.status).toBe(200);
    await page.getByRole("link", { name: "Recent requests" }).click();
    const rows = page.getByTestId("request-row");
    for (const started = Date.now(); !(await rows.allTextContents()).join().includes("succeeded") && Date.now() - started < 5000;) await page.reload();
    expect(await rows.allTextContents()).toEqual([expect.stringMatching(/generate.*phone.*succeeded/s)]);
    await fits("requests");
    await page.goto(`${base()}/console/keys`);
    expect(await page.getByTestId("new-key-secret").count()).toBe(0);
    await page
      .getByTestId("key-row")
      .getByRole("button", { name: /^Delete/ })
      .click();
    await fits("delete");
    await page.getByRole("button", { name: "Delete key" }).click();
    await page.waitForURL(`${base()}/console/keys`);
    expect(await page.getByTestId("key-row").count()).toBe(0);
    expect(await keyIds(accountId)).toEqual([]);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${base()}/console/sign-in`);
    await fits("sign-in");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base()}/console`);
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it("holds the account's key cap in the console, saying why", async () => {
    const { accountId } = await openAccount("pro");
    const { session, csrf } = await signedInByForm(accountId);
    for (let i = 0; i < MAX_KEYS; i++) expect((await postForm("/console/keys", { name: `key ${i}`, csrf }, { Cookie: session })).status).toBe(303);
    expect(await keyIds(accountId)).toHaveLength(MAX_KEYS);

    const { context, page } = await newPage();
    const [name, value] = session.split("=") as [string, string];
    await context.addCookies([{ name, value, url: base(), secure: true, httpOnly: true, sameSite: "Strict" }]);
    await page.goto(`${base()}/console/keys/new`);
    await page.getByLabel("Key name").fill("one too many");
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.getByRole("alert").textContent()).toBe(`An account may hold at most ${MAX_KEYS} keys. Delete a key before you make another.`);
    expect(await page.getByTestId("new-key-secret").count()).toBe(0);
    expect(await keyIds(accountId)).toHaveLength(MAX_KEYS);
    await context.close();
  });

  it("makes a key with restrictions (a malformed range refused, named), lists them, and rolls it", async () => {
    const { accountId } = await openAccount("pro");
    const { session } = await signedInByForm(accountId);
    const { context, page } = await newPage();
    const [name, value] = session.split("=") as [string, string];
    await context.addCookies([{ name, value, url: base(), secure: true, httpOnly: true, sameSite: "Strict" }]);
    await page.goto(`${base()}/console/keys/new`);
    await page.getByLabel("Key name").fill("mobile app");
    for (const scope of ["generate", "virtual-tryon", "templates"]) await page.getByLabel(scope).uncheck();
    await page.getByLabel(/^Expires/).fill("30d");
    await page.getByLabel(/^Allowed addresses/).fill("127.0.0.1, 2001:db8::/33, 10.0.0.0/33");
    await page.getByLabel(/^Monthly limit/).fill("5");
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("Not an IP address range: 10.0.0.0/33");
    // The form comes back as typed: only the bad range needs changing.
    expect(await page.getByLabel("generate").isChecked()).toBe(false);
    // The test's own address, so that the key works from here.
    await page.getByLabel(/^Allowed addresses/).fill("127.0.0.1, 2001:db8::/33");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.getByTestId("new-key-secret").textContent())!;
    const restrictions = (await page.getByTestId("key-restrictions").textContent())!;
    for (const shown of ["Only ocr", "Expires", "From 127.0.0.1/32, 2001:db8::/33", "5 units a month"]) expect(restrictions).toContain(shown);
    expect((await profile(secret)).json.data.key).toMatchObject({ scopes: ["ocr"], allowedIps: ["127.0.0.1/32", "2001:db8::/33"], monthlyLimit: 5 });

    await page.getByRole("button", { name: "Roll mobile app" }).click();
    await page.getByLabel(/^Grace period/).fill("1h");
    await page.getByRole("button", { name: "Roll key" }).click();
    const rolled = (await page.getByTestId("new-key-secret").textContent())!;
    expect(rolled).not.toBe(secret);
    // Both are listed: the old one now ends with the grace, the new one has the same restrictions.
    expect(await page.getByTestId("key-row").count()).toBe(2);
    const listed = JSON.parse((await itsctl(service.env, ["key", "list", "--account", accountId, "--json"])).stdout) as Array<{
      expiresAt: string;
      monthlyLimit: number;
    }>;
    expect(listed.map((key) => key.monthlyLimit)).toEqual([5, 5]);
    expect(Math.min(...listed.map((key) => Date.parse(key.expiresAt))) - Date.now()).toBeLessThan(3_600_000);
    await context.close();
  });

  it("lets no older invitation in once a newer one set the password; itsctl account invite --revoke ends the rest", async () => {
    const { accountId } = await openAccount("free");
    const [first, second, third] = [await invitePath(accountId), await invitePath(accountId), await invitePath(accountId)];
    const set = await postForm(second, { password: PASSWORD, confirm: PASSWORD });
    expect(set.status).toBe(303);
    const session = String(set.headers["set-cookie"]).split(";")[0]!;

    // Issued before the password was set, both are dead: no page, no password, no session.
    const other = "another password, from an old link";
    for (const older of [first, third]) {
      expect((await service.client.request("GET", older)).status).toBe(404);
      const reset = await postForm(older, { password: other, confirm: other });
      expect(reset.status).toBe(404);
      expect(reset.body.toString()).toContain("Invitation not valid");
      expect(reset.headers["set-cookie"]).toBeUndefined();
    }
    expect((await service.client.request("GET", "/console", { headers: { Cookie: session } })).status).toBe(200);

    // The operator withdraws links that are still outstanding.
    const [fourth, fifth] = [await invitePath(accountId), await invitePath(accountId)];
    const revoked = await itsctl(service.env, ["account", "invite", "--account", accountId, "--revoke"]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked 2 outstanding invitations for ${accountId} \\(.+\\): those links no longer work\\.`));
    for (const withdrawn of [fourth, fifth]) {
      expect((await service.client.request("GET", withdrawn)).status).toBe(404);
      const reset = await postForm(withdrawn, { password: other, confirm: other });
      expect({ status: reset.status, cookie: reset.headers["set-cookie"] }).toEqual({ status: 404, cookie: undefined });
    }
    const again = await itsctl(service.env, ["account", "invite", "--account", accountId, "--revoke", "--json"]);
    expect(JSON.parse(again.stdout)).toEqual({ accountId, revoked: [] });
    expect((await service.client.request("GET", "/console", { headers: { Cookie: session } })).status).toBe(200);

    // Each revocation is an event with its actor: the holder's password change, then the operator.
    const audit = await itsctl(service.env, ["audit", "--account", accountId, "--json"]);
    const history = (JSON.parse(audit.stdout) as { history: Array<{ type: string; what: string; actor: { kind: string } | null }> }).history;
    expect(
      history.filter((entry) => entry.type === "InvitationRevoked").map((entry) => [entry.actor?.kind, entry.what.replace(/ [a-z0-9]{16} /, " … ")]),
    ).toEqual([
      ["console", "console invitation … revoked (a password was set)"],
      ["console", "console invitation … revoked (a password was set)"],
      ["operator", "console invitation … revoked (by the operator)"],
      ["operator", "console invitation … revoked (by the operator)"],
    ]);
  });

  it("checks at most 5 of 40 wrong passwords sent at once, and refuses the right one until the window passes", async () => {
    const { accountId, email } = await openAccount("free");
    expect((await postForm(await invitePath(accountId), { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);

    // A 401 is a password checked and found wrong; a 429 was refused before any check.
    const wrong = await Promise.all(Array.from({ length: 40 }, (_, i) => postForm("/console/sign-in", { email, password: `wrong password ${i}` })));
    const checked = wrong.filter((reply) => reply.status === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(5);
    expect(wrong.filter((reply) => reply.status === 429)).toHaveLength(40 - checked);

    const refused = await postForm("/console/sign-in", { email, password: PASSWORD });
    expect({ status: refused.status, cookie: refused.headers["set-cookie"] }).toEqual({ status: 429, cookie: undefined });
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(12);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 200));

    const signedIn = await postForm("/console/sign-in", { email, password: PASSWORD });
    expect(signedIn.status).toBe(303);
    // That sign-in handed its token back; a wrong password never does.
    expect((await postForm("/console/sign-in", { email, password: "wrong again" })).status).toBe(401);
    expect((await postForm("/console/sign-in", { email, password: "wrong once more" })).status).toBe(429);
  });

  it("Templates: a live preview drawn by the service, the API's own details in place, create (the API sees it), delete with the CSRF token", async () => {
    const { accountId } = await openAccount("free");
    const { context, page, cspViolations } = await newPage();
    await page.goto(base() + (await invitePath(accountId)));
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Confirm password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.waitForURL(`${base()}/console`);
    // A key made here rather than by another itsctl process (seconds each on a loaded machine).
    await page.goto(`${base()}/console/keys/new`);
    await page.getByLabel("Key name").fill("templates");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key-secret").textContent())!.trim();
    await page.getByRole("link", { name: "Templates" }).click();
    await page.waitForURL(`${base()}/console/templates`);
    expect(await page.getByText(/No templates of your own yet/).count()).toBe(1);

    // The sample design's live preview, drawn by the service: the photo's box grey, a dark PREVIEW band at the bottom.
    const pixel = (x: number, y: number) =>
      page.evaluate<Array<number>>(`(() => {
        const picture = document.getElementById("preview-image");
        const canvas = Object.assign(document.createElement("canvas"), { width: picture.naturalWidth, height: picture.naturalHeight });
        const drawing = canvas.getContext("2d");
        drawing.drawImage(picture, 0, 0);
        return [picture.naturalWidth, ...drawing.getImageData(${x}, ${y}, 1, 1).data.slice(0, 3)];
      })()`);
    await page.locator("#preview-image").waitFor({ state: "visible" });
    expect(await pixel(300, 200)).toEqual([1200, 0x8a, 0x94, 0xa0]);
    const [, ...band] = await pixel(900, 625);
    expect(Math.max(...band)).toBeLessThan(40);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // A broken design: the form shows the details POST /api/templates answers with, word for word.
    const broken = JSON.parse(await page.getByLabel(/^Template \(JSON/).inputValue()) as { layers: Array<Record<string, unknown>> };
    broken.layers[1] = { ...broken.layers[1], box: { x: 1100, y: 80, width: 520, height: 260 }, font: "Comic Sans" };
    broken.layers.push({ type: "sticker", box: { x: 0, y: 0, width: 10, height: 10 } });
    const api = await service.client.request("POST", "/api/templates", { key, body: broken });
    expect(api.status).toBe(400);
    const apiDetails = (api.json.error.details as Array<{ path: string; message: string }>).map(({ path: at, message }) => `${at}: ${message}`);
    expect(apiDetails.length).toBeGreaterThan(1);
    await page.getByLabel(/^Template \(JSON/).fill(JSON.stringify(broken, null, 2));
    await expect.poll(() => page.getByTestId("design-errors").locator("li").allTextContents()).toEqual(apiDetails);
    expect(await page.locator("#preview-status").textContent()).toContain("No preview");
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Sent without the script's help, Create answers 400 with the same list beside the text as typed.
    await page.getByRole("button", { name: "Create template" }).click();
    await page.waitForURL(`${base()}/console/templates`);
    expect(await page.getByTestId("design-errors").locator("li").allTextContents()).toEqual(apiDetails);
    expect(JSON.parse(await page.getByLabel(/^Template \(JSON/).inputValue())).toEqual(broken);

    // The sample as it stands: made, listed with its preview, and drawn by /generate with the key.
    await page.goto(`${base()}/console/templates`);
    await page.getByRole("button", { name: "Create template" }).click();
    await page.waitForURL(`${base()}/console/templates`);
    const row = page.getByTestId("template-row");
    expect(await row.count()).toBe(1);
    const templateId = (await row.getAttribute("data-template-id"))!;
    await expect.poll(() => row.locator("img").evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1200);
    // The API's own view of it: the same template, made by the holder in the console.
    const kept = await service.client.request("GET", "/api/templates/launch-card", { key });
    expect(kept.status).toBe(200);
    expect(kept.json.data).toMatchObject({ id: templateId, version: 1, canvas: { width: 1200, height: 630 } });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "templates");

    // Delete: refused without the session's token, done with it.
    const session = (await context.cookies()).find((c) => c.name === "__Host-its-console-session")!;
    const tokenless = await postForm(`/console/templates/${templateId}/delete`, {}, { Cookie: `${session.name}=${session.value}` });
    expect(tokenless.status).toBe(403);
    expect((await service.client.request("GET", `/api/templates/${templateId}`, { key })).status).toBe(200);
    await page.getByRole("button", { name: "Delete launch-card" }).click();
    await page.waitForURL(`${base()}/console/templates`);
    expect(await page.getByTestId("template-row").count()).toBe(0);
    expect((await service.client.request("GET", `/api/templates/${templateId}`, { key })).status).toBe(404);
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  // Last: it spends this address's sign-in budget, which every test here shares.
  it("throttles wrong passwords per account and per address", async () => {
    const { accountId, email } = await openAccount("free");
    expect((await postForm(await invitePath(accountId), { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);

    const statuses: Array<number> = [];
    for (let i = 0; i < 6; i++) statuses.push((await postForm("/console/sign-in", { email, password: `wrong ${i} password` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const throttled = await postForm("/console/sign-in", { email, password: PASSWORD });
    expect(throttled.status).toBe(429);
    expect(throttled.body.toString()).toContain("Too many attempts");
    expect(Number(throttled.headers["retry-after"])).toBeGreaterThan(0);

    // Per address: other emails from the same address run out the address's bucket too.
    let status = 401;
    for (let i = 0; i < 40 && status === 401; i++)
      status = (await postForm("/console/sign-in", { email: `nobody-${i}@example.com`, password: "wrong password" })).status;
    expect(status).toBe(429);
  });
});
