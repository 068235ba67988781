import { CONSOLE_ASSETS } from "./console-assets.ts";
import { html, type SafeHtml } from "./html.ts";

/** The console's pages: server-rendered HTML, every action a plain form. */
type Section = "overview" | "keys" | "templates" | "webhooks" | "requests" | "bill";

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
  ["templates", "/console/templates", "Templates"],
  ["webhooks", "/console/webhooks", "Webhooks"],
  ["requests", "/console/requests", "Recent requests"],
  ["bill", "/console/bill", "Bill"],
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

export const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
export const errorLine = (message: string | undefined) => (message ? html`<p class="error" role="alert">${message}</p>` : "");

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
