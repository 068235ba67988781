import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, chromium, type Page } from "playwright-core";

/**
 * Headless Debian chromium driven by playwright-core (a test tool's own browser download cannot
 * work offline); `npm test` installs the `chromium` package first (tools/system-packages). axe-core runs inside the page.
 */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
  });

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>;
}

/** Axe's violations of impact serious or critical on the page as it is now. */
export const seriousAxeViolations = async (page: Page): Promise<ReadonlyArray<AxeViolation>> => {
  // Evaluated through the debugging protocol, so the page's Content-Security-Policy (no inline script) does not stop it.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: ReadonlyArray<AxeViolation> }> } }).axe;
    return (await axe.run()).violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map(({ target }) => ({ target })) }));
  });
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
};
