import type { ConsoleView } from "../../application/account/console-view.ts";
import { KEY_SCOPES } from "../../domain/key-restrictions.ts";
import { errorLine, page, when } from "./console-layout.ts";
import { html } from "./html.ts";
import { type KeyRestrictionFields, RESTRICTIONS_MARK } from "./key-restriction-form.ts";
import type { NewKeyFlash } from "./new-key-flash.ts";

type ListedKey = ConsoleView["keys"][number];

/** A key's restrictions, one line each; "None" for a key that carries the whole account. */
const restrictionsOf = (key: ListedKey) => {
  const lines = [
    key.scopes === null ? undefined : html`Only ${key.scopes.join(", ")}`,
    key.expiresAt === null ? undefined : html`Expires ${when(key.expiresAt)}`,
    key.allowedIps === null ? undefined : html`From ${key.allowedIps.join(", ")}`,
    key.monthlyLimit === null ? undefined : html`${key.monthlyLimit} units a month`,
  ].filter((line) => line !== undefined);
  return lines.length === 0
    ? "None"
    : html`<ul class="plain">
        ${lines.map((line) => html`<li>${line}</li>`)}
      </ul>`;
};

/** The pages of the account's API keys: the list (with a new key's secret, once), making, rolling and deleting one. */
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
                      <th scope="col">Restrictions</th>
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
                          <td data-label="Restrictions" data-testid="key-restrictions">${restrictionsOf(key)}</td>
                          <td data-label="Last used">${key.lastUsedAt ? when(key.lastUsedAt) : "never"}</td>
                          <td data-label="">
                            <div class="row-actions">
                              <form class="inline" method="get" action="/console/keys/${key.id}/roll">
                                <button type="submit" class="secondary" aria-label="Roll ${key.name || key.prefix}">Roll</button>
                              </form>
                              <form class="inline" method="get" action="/console/keys/${key.id}/delete">
                                <button type="submit" class="secondary" aria-label="Delete ${key.name || key.prefix}">Delete</button>
                              </form>
                            </div>
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
      </section>`,
  });

export const newKeyPage = (
  view: ConsoleView,
  csrfToken: string,
  options: { readonly name?: string; readonly restrictions: KeyRestrictionFields; readonly error?: string; readonly maxLength: number },
) =>
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
          <input type="hidden" name="${RESTRICTIONS_MARK}" value="1" />
          <fieldset>
            <legend>Operations it may call</legend>
            ${KEY_SCOPES.map(
              (scope) =>
                html`<label
                  ><input type="checkbox" name="scope-${scope}" value="on" ${options.restrictions.scopes.includes(scope) ? "checked" : ""} /> ${scope}</label
                >`,
            )}
          </fieldset>
          <label for="expires">Expires (optional: a duration such as 30d or 24h, or a time such as 2027-01-31T00:00:00Z)</label>
          <input id="expires" name="expires" type="text" maxlength="64" value="${options.restrictions.expires}" autocomplete="off" />
          <label for="allow-ip">Allowed addresses (optional: CIDR ranges, IPv4 or IPv6, separated by commas)</label>
          <input id="allow-ip" name="allow-ip" type="text" maxlength="2048" value="${options.restrictions.allowIp}" autocomplete="off" />
          <label for="monthly-limit">Monthly limit (optional: the most units this key may spend in a month)</label>
          <input id="monthly-limit" name="monthly-limit" type="number" min="1" step="1" value="${options.restrictions.monthlyLimit}" />
          <div class="actions"><button type="submit">Create key</button><a href="/console/keys">Cancel</a></div>
        </form>
      </section>`,
  });

export const deleteKeyPage = (view: ConsoleView, csrfToken: string, key: ListedKey) =>
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

export const rollKeyPage = (view: ConsoleView, csrfToken: string, key: ListedKey, options: { readonly grace?: string; readonly error?: string } = {}) =>
  page({
    title: "Roll key",
    signedIn: { section: "keys", csrfToken, email: view.email },
    body: html`<h1>Roll key “${key.name || key.prefix}”?</h1>
      <section>
        <p>
          A new key with the same name and restrictions is made and shown once. <code>${key.prefix}</code> keeps working until the grace period ends, then
          stops.
        </p>
        ${errorLine(options.error)}
        <form method="post" action="/console/keys/${key.id}/roll">
          <input type="hidden" name="csrf" value="${csrfToken}" />
          <label for="grace">Grace period (e.g. 24h, 30m, 7d)</label>
          <input id="grace" name="grace" type="text" required maxlength="16" value="${options.grace ?? "24h"}" autocomplete="off" />
          <div class="actions"><button type="submit">Roll key</button><a href="/console/keys">Cancel</a></div>
        </form>
      </section>`,
  });
