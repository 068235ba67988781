import type { ConsoleView } from "../../application/account/console-view.ts";
import { WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from "../../domain/webhook-endpoints.ts";
import type { IndexedDelivery } from "../../ports/webhook-index.ts";
import { errorLine, page, when } from "./console-layout.ts";
import { html } from "./html.ts";

/** What the page shows besides the list: a new endpoint's secret (this once), or a refusal and the url as typed. */
export interface WebhookFormState {
  readonly url?: string;
  readonly error?: string;
  readonly created?: { readonly endpointId: string; readonly secret: string };
}

export interface EndpointWithDeliveries {
  readonly endpoint: WebhookEndpoint;
  readonly deliveries: ReadonlyArray<IndexedDelivery>;
}

const deliveryRows = (endpointId: string, deliveries: ReadonlyArray<IndexedDelivery>, csrfToken: string) =>
  deliveries.length === 0
    ? html`<p>No deliveries yet.</p>`
    : html`<div class="table-wrap">
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Created</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Outcome</th>
              <th scope="col">Next attempt</th>
              <th scope="col"><span class="skip">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${deliveries.map(
              (delivery) =>
                html`<tr data-testid="delivery-row" data-delivery-id="${delivery.deliveryId}">
                  <td data-label="Event">${delivery.eventType}<br /><code>${delivery.deliveryId}</code></td>
                  <td data-label="Created">${when(delivery.createdAt)}</td>
                  <td data-label="Attempts">${delivery.attempts}</td>
                  <td data-label="Last answer">${delivery.lastStatusCode ?? delivery.lastError ?? "—"}</td>
                  <td data-label="Outcome">${delivery.status}</td>
                  <td data-label="Next attempt">${delivery.nextAttemptAt === null ? "—" : when(delivery.nextAttemptAt)}</td>
                  <td data-label="">
                    <form class="inline" method="post" action="/console/webhooks/${endpointId}/deliveries/${delivery.deliveryId}/resend">
                      <input type="hidden" name="csrf" value="${csrfToken}" />
                      <button type="submit" class="secondary">Resend</button>
                    </form>
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`;

const endpointSection = ({ endpoint, deliveries }: EndpointWithDeliveries, csrfToken: string) =>
  html`<section class="webhook" data-testid="webhook" data-webhook-id="${endpoint.endpointId}" aria-label="Webhook ${endpoint.url}">
    <h3><code>${endpoint.url}</code></h3>
    <p>
      <code>${endpoint.endpointId}</code> · ${endpoint.events.join(", ")} · added ${when(endpoint.createdAt)} ·
      ${endpoint.status === "active" ? "active" : html`<strong class="error">disabled: ${endpoint.disabledReason ?? ""}</strong>`}
    </p>
    <form class="inline" method="post" action="/console/webhooks/${endpoint.endpointId}/delete">
      <input type="hidden" name="csrf" value="${csrfToken}" />
      <button type="submit" class="secondary" aria-label="Delete webhook ${endpoint.url}">Delete</button>
    </form>
    <h4>Recent deliveries</h4>
    ${deliveryRows(endpoint.endpointId, deliveries, csrfToken)}
  </section>`;

/** The Webhooks page: the account's endpoints with their recent deliveries, and a form that adds one. */
export const webhooksPage = (view: ConsoleView, csrfToken: string, endpoints: ReadonlyArray<EndpointWithDeliveries>, form: WebhookFormState) =>
  page({
    title: "Webhooks",
    signedIn: { section: "webhooks", csrfToken, email: view.email },
    body: html`<h1>Webhooks</h1>
      <p>Endpoints told when a job ends (<code>job.succeeded</code>, <code>job.failed</code>), signed as Standard Webhooks specifies.</p>
      ${
        form.created
          ? html`<div class="flash" role="status" data-testid="new-webhook-secret">
              <p>Webhook <code>${form.created.endpointId}</code> added. Its signing secret, shown this once:</p>
              <p><code>${form.created.secret}</code></p>
            </div>`
          : ""
      }
      <section aria-labelledby="endpoints-heading">
        <h2 id="endpoints-heading">Your endpoints</h2>
        ${endpoints.length === 0 ? html`<p>No webhooks yet.</p>` : endpoints.map((entry) => endpointSection(entry, csrfToken))}
      </section>
      <section aria-labelledby="new-heading">
        <h2 id="new-heading">Add an endpoint</h2>
        <form method="post" action="/console/webhooks">
          <input type="hidden" name="csrf" value="${csrfToken}" />
          <label for="url">URL (https)</label>
          <input id="url" name="url" type="url" required maxlength="2048" value="${form.url ?? ""}" aria-describedby="url-error" />
          <fieldset>
            <legend>Events</legend>
            ${WEBHOOK_EVENT_TYPES.map((type) => html`<label><input type="checkbox" name="${type}" value="on" checked /> ${type}</label>`)}
          </fieldset>
          <div id="url-error" aria-live="polite">${errorLine(form.error)}</div>
          <div class="actions"><button type="submit">Add webhook</button></div>
        </form>
      </section>`,
  });
