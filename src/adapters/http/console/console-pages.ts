import type { ConsoleView } from "../../../application/console-view.ts";
import { CONSOLE_ASSETS } from "./console-assets.ts";
import { html, type SafeHtml } from "./html.ts";
import type { NewKeyFlash } from "./new-key-flash.ts";

/** The console's pages: server-rendered HTML, every action a plain form. */
type Section = "overview" | "keys" | "requests";

interface Layout {
  readonly title: string;
  /** Present when signed in: the navigation and the "Sign out" button. */
  readonly signedIn?: { readonly section: Section; readonly csrfToken: string; readonly email: string };
  readonly body: SafeHtml;
}

const asset = (name: keyof typeof CONSOLE_ASSETS) => `/console/assets/${name}?v=${CONSOLE_ASSETS[name].version}`;

const NAV: ReadonlyArray<readonly [Section, string, string]> = [
  ["overview", "/console", "Overview"],
  ["keys", "/console/keys", "API keys"],
  ["requests", "/console/requests", "Recent requests"],
];

export const page = ({ title, signedIn, body }: Layout): string =>
  "<!doctype html>\n" +
  html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} · Image Transformation API console</title>
      <link rel="stylesheet" href="${asset("console.css")}" />
      <script src="${asset("console.js")}" defer></script>
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href="/console">Image Transformation API</a>
        ${
          signedIn
            ? html`<nav aria-label="Console">
                  ${NAV.map(([section, href, label]) => html`<a href="${href}" ${section === signedIn.section ? html` aria-current="page"` : ""}>${label}</a>`)}
                </nav>
                <span>${signedIn.email}</span>
                <form class="inline" method="post" action="/console/sign-out">
                  <input type="hidden" name="csrf" value="${signedIn.csrfToken}" /><button type="submit" class="secondary">Sign out</button>
                </form>`
            : ""
        }
      </header>
      <main id="main">${body}</main>
    </body>
  </html> `.markup;

const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
const errorLine = (message: string | undefined) => (message ? html`<p class="error" role="alert">${message}</p>` : "");

export const signInPage = (options: { readonly email?: string; readonly error?: string; readonly notice?: string }) =>
  page({
    title: "Sign in",
    body: html`<div class="card narrow">
      <h1>Sign in</h1>
      ${options.notice ? html`<p role="status">${options.notice}</p>` : ""} ${errorLine(options.error)}
      <form method="post" action="/console/sign-in">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${options.email ?? ""}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256" />
        <div class="actions"><button type="submit">Sign in</button></div>
      </form>
      <p>Forgot your password? Ask your operator for a new invitation link.</p>
    </div>`,
  });

export const setPasswordPage = (options: { readonly token: string; readonly email: string; readonly minLength: number; readonly error?: string }) =>
  page({
    title: "Set your password",
    body: html`<div class="card narrow">
      <h1>Set your password</h1>
      <p>For <strong>${options.email}</strong>. At least ${options.minLength} characters.</p>
      ${errorLine(options.error)}
      <form method="post" action="/console/invite/${options.token}">
        <input type="text" name="username" autocomplete="username" value="${options.email}" hidden />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${options.minLength}" maxlength="256" />
        <label for="confirm">Confirm password</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="${options.minLength}" maxlength="256" />
        <div class="actions"><button type="submit">Set password</button></div>
      </form>
    </div>`,
  });

export const messagePage = (title: string, message: string, link?: { readonly href: string; readonly label: string }) =>
  page({
    title,
    body: html`<div class="card narrow">
      <h1>${title}</h1>
      <p>${message}</p>
      ${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ""}
    </div>`,
  });

const OPERATIONS = ["generate", "ocr", "virtual-tryon"] as const;

/** Stacked bars: one per day of the month, one colour per operation; the table below holds the same numbers. */
const dailyChart = (view: ConsoleView) => {
  const [year, month] = view.quota.period.split("-").map(Number) as [number, number];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const counts = new Map<string, number>(view.daily.map((row) => [`${row.day}|${row.operation}`, row.committed]));
  const perDay = Array.from({ length: days }, (_, index) => {
    const date = `${view.quota.period}-${String(index + 1).padStart(2, "0")}`;
    return { date, counts: OPERATIONS.map((operation) => counts.get(`${date}|${operation}`) ?? 0) };
  });
  const highest = Math.max(1, ...perDay.map((entry) => entry.counts.reduce((a, b) => a + b, 0)));
  const width = 620;
  const height = 180;
  const left = 30;
  const bottom = 20;
  const slot = (width - left) / days;
  const scale = (height - bottom - 10) / highest;
  const total = view.daily.reduce((sum, row) => sum + row.committed, 0);
  const bars = perDay.flatMap((entry, index) => {
    let y = height - bottom;
    return entry.counts.map((count, op) => {
      if (count === 0) return html``;
      const barHeight = count * scale;
      y -= barHeight;
      return html`<rect
        class="op-${OPERATIONS[op]!}"
        x="${(left + index * slot + 1).toFixed(1)}"
        y="${y.toFixed(1)}"
        width="${Math.max(1, slot - 2).toFixed(1)}"
        height="${barHeight.toFixed(1)}"
        ><title>${entry.date}: ${count} ${OPERATIONS[op]!}</title></rect
      >`;
    });
  });
  const labels = perDay
    .filter((_, index) => index % 5 === 0 || index === days - 1)
    .map((entry) => {
      const index = Number(entry.date.slice(8)) - 1;
      return html`<text x="${(left + index * slot + slot / 2).toFixed(1)}" y="${height - 5}" text-anchor="middle">${String(index + 1)}</text>`;
    });
  const rows = perDay.filter((entry) => entry.counts.some((count) => count > 0));
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title">
      <title id="chart-title">Successful transformations per day in ${view.quota.period}: ${total} in all</title>
      <line class="axis" x1="${left}" y1="${height - bottom}" x2="${width}" y2="${height - bottom}"></line>
      <text x="${left - 4}" y="14" text-anchor="end">${highest}</text>
      <text x="${left - 4}" y="${height - bottom}" text-anchor="end">0</text>
      ${bars}${labels}
    </svg>
    <ul class="legend">
      ${OPERATIONS.map((operation) => html`<li><span class="swatch op-${operation}"></span>${operation}</li>`)}
    </ul>
    <details>
      <summary>Numbers per day</summary>
      ${
        rows.length === 0
          ? html`<p>No successful transformations yet this month.</p>`
          : html`<div class="table-wrap">
              <table>
                <caption>
                  Successful transformations per day
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    ${OPERATIONS.map((operation) => html`<th scope="col">${operation}</th>`)}
                  </tr>
                </thead>
                <tbody>
                  ${rows.map(
                    (entry) =>
                      html`<tr>
                        <th scope="row">${entry.date}</th>
                        ${entry.counts.map((count) => html`<td>${count}</td>`)}
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </details>`;
};

export const overviewPage = (view: ConsoleView, csrfToken: string) => {
  const { quota } = view;
  return page({
    title: "Overview",
    signedIn: { section: "overview", csrfToken, email: view.email },
    body: html`<h1>Overview</h1>
      <section aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <dl class="facts">
          <dt>Email</dt>
          <dd data-testid="account-email">${view.email}</dd>
          ${
            view.name
              ? html`<dt>Name</dt>
                  <dd>${view.name}</dd>`
              : ""
          }
          <dt>Account id</dt>
          <dd><code>${view.accountId}</code></dd>
          <dt>Plan</dt>
          <dd data-testid="plan">${view.plan}</dd>
          <dt>Features</dt>
          <dd data-testid="features">${view.features.join(", ")}</dd>
          <dt>Rate limit</dt>
          <dd>${view.rateLimit.perMinute} requests per minute per key, bursts of ${view.rateLimit.burst}</dd>
        </dl>
      </section>
      <section aria-labelledby="quota-heading">
        <h2 id="quota-heading">Quota in ${quota.period}</h2>
        ${
          quota.limit === null
            ? html`<p data-testid="quota">${quota.used} transformations used; this plan has no monthly limit.</p>`
            : html`<p data-testid="quota">${quota.used} used of ${quota.limit}, ${quota.remaining} remaining.</p>
                <meter
                  id="quota-meter"
                  min="0"
                  max="${quota.limit}"
                  value="${quota.used}"
                  low="${Math.floor(quota.limit * 0.75)}"
                  high="${Math.floor(quota.limit * 0.9)}"
                  optimum="0"
                  aria-label="Quota used"
                >
                  ${quota.used} of ${quota.limit}
                </meter>`
        }
        <p>Resets on ${when(quota.resetsAt)}.</p>
      </section>
      <section aria-labelledby="chart-heading">
        <h2 id="chart-heading">Successful transformations this month</h2>
        ${dailyChart(view)}
      </section>`,
  });
};

export const keysPage = (view: ConsoleView, csrfToken: string, created: NewKeyFlash | undefined) =>
  page({
    title: "API keys",
    signedIn: { section: "keys", csrfToken, email: view.email },
    body: html`<h1>API keys</h1>
      ${
        created
          ? html`<section class="notice" aria-labelledby="new-key-heading">
              <h2 id="new-key-heading">Your new key “${created.name}”</h2>
              <p>Copy it now and keep it somewhere safe: it is shown only this once.</p>
              <code class="secret" id="new-key-secret" data-testid="new-key-secret">${created.key}</code>
              <div class="actions"><button type="button" class="secondary" data-copy="new-key-secret" hidden>Copy</button></div>
            </section>`
          : ""
      }
      <form class="toolbar" method="get" action="/console/keys/new"><button type="submit">Generate new key</button></form>
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Active keys</h2>
        ${
          view.keys.length === 0
            ? html`<p>No active keys.</p>`
            : html`<div class="table-wrap">
                <table class="stack">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Prefix</th>
                      <th scope="col">Created</th>
                      <th scope="col">Last used</th>
                      <th scope="col"><span class="skip">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${view.keys.map(
                      (key) =>
                        html`<tr data-testid="key-row" data-key-id="${key.id}">
                          <td data-label="Name">${key.name || "(unnamed)"}</td>
                          <td data-label="Prefix"><code>${key.prefix}</code></td>
                          <td data-label="Created">${when(key.createdAt)}</td>
                          <td data-label="Last used">${key.lastUsedAt ? when(key.lastUsedAt) : "never"}</td>
                          <td data-label="">
                            <form class="inline" method="get" action="/console/keys/${key.id}/delete">
                              <button type="submit" class="secondary" aria-label="Delete ${key.name || key.prefix}">Delete</button>
                            </form>
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
      </section>`,
  });

export const newKeyPage = (view: ConsoleView, csrfToken: string, options: { readonly name?: string; readonly error?: string; readonly maxLength: number }) =>
  page({
    title: "Generate new key",
    signedIn: { section: "keys", csrfToken, email: view.email },
    body: html`<h1>Generate new key</h1>
      <section>
        ${errorLine(options.error)}
        <form method="post" action="/console/keys">
          <input type="hidden" name="csrf" value="${csrfToken}" />
          <label for="name">Key name</label>
          <input id="name" name="name" type="text" required maxlength="${options.maxLength}" value="${options.name ?? ""}" autocomplete="off" />
          <div class="actions"><button type="submit">Create key</button><a href="/console/keys">Cancel</a></div>
        </form>
      </section>`,
  });

export const deleteKeyPage = (view: ConsoleView, csrfToken: string, key: ConsoleView["keys"][number]) =>
  page({
    title: "Delete key",
    signedIn: { section: "keys", csrfToken, email: view.email },
    body: html`<h1>Delete key “${key.name || key.prefix}”?</h1>
      <section>
        <p>Requests made with <code>${key.prefix}</code> will be refused from now on. This cannot be undone.</p>
        <form method="post" action="/console/keys/${key.id}/delete">
          <input type="hidden" name="csrf" value="${csrfToken}" />
          <div class="actions"><button type="submit" class="danger">Delete key</button><a href="/console/keys">Cancel</a></div>
        </form>
      </section>`,
  });

const OUTCOMES: Readonly<Record<ConsoleView["recent"][number]["outcome"], string>> = {
  succeeded: "succeeded",
  failed: "failed (not counted)",
  refused: "refused: quota used up",
  pending: "in progress",
};

export const requestsPage = (view: ConsoleView, csrfToken: string) =>
  page({
    title: "Recent requests",
    signedIn: { section: "requests", csrfToken, email: view.email },
    body: html`<h1>Recent requests</h1>
      <section>
        <p>Transformation requests that reached the quota, newest first (requests refused earlier, e.g. for a bad key, are not listed).</p>
        ${
          view.recent.length === 0
            ? html`<p>No requests yet.</p>`
            : html`<div class="table-wrap">
                <table class="stack">
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Operation</th>
                      <th scope="col">Key</th>
                      <th scope="col">Outcome</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${view.recent.map(
                      (request) =>
                        html`<tr data-testid="request-row">
                          <td data-label="Time">${when(request.at)}</td>
                          <td data-label="Operation">${request.operation}</td>
                          <td data-label="Key">
                            <span>${request.keyName ?? "(deleted key)"} <code>its_${request.keyId}</code></span>
                          </td>
                          <td data-label="Outcome">${OUTCOMES[request.outcome]}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
      </section>`,
  });
