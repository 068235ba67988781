import type { ConsoleView } from "../../application/account/console-view.ts";
import { page, when } from "./console-layout.ts";
import { html } from "./html.ts";

/** The signed-in pages that show the account's use: the overview (quota, daily chart) and the recent requests. */
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
