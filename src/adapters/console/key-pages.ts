import type { ConsoleView } from "../../application/account/console-view.ts";
import { errorLine, page, when } from "./console-layout.ts";
import { html } from "./html.ts";
import type { NewKeyFlash } from "./new-key-flash.ts";

/** The pages of the account's API keys: the list (with a new key's secret, once), making one, deleting one. */
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
