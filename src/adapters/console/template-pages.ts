import type { ConsoleView } from "../../application/account/console-view.ts";
import type { TemplateVersion } from "../../domain/account-templates/account-template.ts";
import { launchCardDesign } from "../../domain/account-templates/launch-card.ts";
import { TEMPLATES } from "../../domain/template-catalog/template-catalog.ts";
import { errorLine, page, when } from "./console-layout.ts";
import { html } from "./html.ts";

/** What the form gives back after a refusal: the text as typed, the refusal's message and its details (the API's 4xx body). */
export interface TemplateFormState {
  readonly json: string;
  readonly error?: string;
  readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
}

/** The launch card of issue 27 without its logo: a start the holder edits, and a valid design as it stands. */
export const SAMPLE_DESIGN = JSON.stringify(launchCardDesign(), null, 2);

const templateRows = (templates: ReadonlyArray<TemplateVersion>, csrfToken: string) =>
  html`<div class="table-wrap">
    <table class="stack">
      <thead>
        <tr>
          <th scope="col">Preview</th>
          <th scope="col">Name</th>
          <th scope="col">Canvas</th>
          <th scope="col">Version</th>
          <th scope="col">Updated</th>
          <th scope="col"><span class="skip">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${templates.map(
          ({ templateId, name, version, updatedAt, design: { canvas, layers } }) =>
            html`<tr data-testid="template-row" data-template-id="${templateId}">
              <td data-label="Preview">
                <a href="/console/templates/${templateId}/preview"
                  ><img class="thumb" src="/console/templates/${templateId}/preview" alt="Preview of ${name}" loading="lazy" width="160"
                /></a>
              </td>
              <td data-label="Name">${name}<br /><code>${templateId}</code></td>
              <td data-label="Canvas">${canvas.width} × ${canvas.height} ${canvas.format}, ${layers.length} ${layers.length === 1 ? "layer" : "layers"}</td>
              <td data-label="Version">${version}</td>
              <td data-label="Updated">${when(updatedAt)}</td>
              <td data-label="">
                <form class="inline" method="post" action="/console/templates/${templateId}/delete">
                  <input type="hidden" name="csrf" value="${csrfToken}" />
                  <button type="submit" class="secondary" aria-label="Delete ${name}">Delete</button>
                </form>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;

/** Every broken rule beside the field that holds the design, by its path in the body (layers.1.box.x …). */
const designErrors = (form: TemplateFormState) =>
  html`<div id="design-errors" aria-live="polite">
    ${errorLine(form.error)}
    ${
      form.details && form.details.length > 0
        ? html`<ul class="error" data-testid="design-errors">
            ${form.details.map(({ path, message }) => html`<li><code>${path}</code>: ${message}</li>`)}
          </ul>`
        : ""
    }
  </div>`;

/**
 * The Templates page: the account's own templates with a preview of each, a form that makes one
 * from the JSON body POST /api/templates takes, and a live preview of what is typed (console.js;
 * without script, Preview opens the picture on a page of its own).
 */
export const templatesPage = (view: ConsoleView, csrfToken: string, templates: ReadonlyArray<TemplateVersion>, form: TemplateFormState) =>
  page({
    title: "Templates",
    signedIn: { section: "templates", csrfToken, email: view.email },
    body: html`<h1>Templates</h1>
      <section aria-labelledby="own-heading">
        <h2 id="own-heading">Your templates</h2>
        <p>
          Designs of this account's own, drawn by <code>POST /api/generate</code> with <code>"templateType": "custom"</code>. Besides them, every account has
          the catalog's ${TEMPLATES.length} templates (<code>GET /api/templates</code> lists both).
        </p>
        ${templates.length === 0 ? html`<p>No templates of your own yet.</p>` : templateRows(templates, csrfToken)}
      </section>
      <section aria-labelledby="new-heading">
        <h2 id="new-heading">New template</h2>
        <form id="template-form" method="post" action="/console/templates">
          <input type="hidden" name="csrf" value="${csrfToken}" />
          <label for="design">Template (JSON, the body of <code>POST /api/templates</code>)</label>
          <div class="editor">
            <div>
              <textarea id="design" name="design" rows="22" spellcheck="false" required aria-describedby="design-errors">${form.json}</textarea>
              ${designErrors(form)}
            </div>
            <figure class="preview">
              <img id="preview-image" alt="Live preview of the design" hidden />
              <figcaption id="preview-status" aria-live="polite">
                Preview: drawn by the service with the design's own text, marked PREVIEW and not charged.
              </figcaption>
            </figure>
          </div>
          <div class="actions">
            <button type="submit">Create template</button>
            <button type="submit" class="secondary" id="preview-button" formaction="/console/templates/preview" formtarget="_blank">Preview</button>
          </div>
        </form>
      </section>`,
  });
