import { createHash } from "node:crypto";

/**
 * The console's stylesheet and its one script, served from /console/assets/ so the
 * Content-Security-Policy can forbid inline code entirely. Every action works without the script:
 * it only adds the copy button beside a new key.
 */
const STYLESHEET = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5360; --line: #c9d1db; --accent: #0b57d0; --danger: #b3261e; --bg: #f6f8fa;
  --generate: #0b57d0; --ocr: #8a4b00; --virtual-tryon: #146c2e; font-family: system-ui, sans-serif; }
* { box-sizing: border-box; }
/* The display rules below would otherwise show what the hidden attribute hides (the script-only copy button). */
[hidden] { display: none !important; }
body { margin: 0; color: var(--ink); background: var(--bg); line-height: 1.5; }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .75rem 1.5rem; padding: .75rem 1.25rem; background: #fff; border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
header.top nav { display: flex; gap: 1rem; flex-wrap: wrap; flex: 1 1 auto; }
header.top nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
main { max-width: 64rem; margin: 0 auto; padding: 1.25rem; }
section, .card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 0 0 1.25rem; }
h1 { font-size: 1.6rem; margin: .25rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 0 0 .75rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
meter { width: 100%; height: 1.25rem; }
button, .button { font: inherit; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 6px; padding: .45rem .9rem; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
form.inline { display: inline; margin: 0; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input[type="text"], input[type="email"], input[type="password"] { font: inherit; width: 100%; max-width: 28rem; padding: .45rem .6rem; border: 1px solid var(--muted); border-radius: 6px; }
.actions { margin-top: 1rem; display: flex; gap: .75rem; align-items: center; flex-wrap: wrap; }
.error { color: var(--danger); font-weight: 600; }
.notice { border-left: 4px solid var(--accent); }
.secret { display: block; padding: .6rem; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; overflow-wrap: anywhere; font-size: .95rem; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
code { font-family: ui-monospace, monospace; }
/* Signed notes and keys keep their lines (a signature must be copied whole) but wrap at any character on a narrow screen. */
pre.note { font-family: ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; padding: .6rem; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; font-size: .9rem; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
.chart { width: 100%; height: auto; }
.chart .axis { stroke: var(--line); }
.chart text { fill: var(--muted); font-size: 10px; }
.op-generate { fill: var(--generate); background: var(--generate); }
.op-ocr { fill: var(--ocr); background: var(--ocr); }
.op-virtual-tryon { fill: var(--virtual-tryon); background: var(--virtual-tryon); }
.legend { display: flex; gap: 1rem; flex-wrap: wrap; padding: 0; list-style: none; }
.legend .swatch { display: inline-block; width: .8rem; height: .8rem; margin-right: .35rem; border-radius: 2px; }
.narrow { max-width: 32rem; margin: 3rem auto; }
form.toolbar { margin: 0 0 1.25rem; }
textarea { font: .85rem/1.4 ui-monospace, monospace; width: 100%; padding: .5rem; border: 1px solid var(--muted); border-radius: 6px; resize: vertical; }
.editor { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; align-items: start; }
.preview { margin: 0; }
.preview img, img.thumb { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
.preview figcaption { color: var(--muted); font-size: .9rem; margin-top: .35rem; }
ul.error { margin: .5rem 0 0; padding-left: 1.25rem; font-weight: 400; }
ul.plain { margin: 0; padding: 0; list-style: none; }
/* A row's actions are one cell's content, side by side (on a phone, one grid item beside the cell's label). */
.row-actions { display: flex; flex-wrap: wrap; gap: .4rem; }
/* Phones: the navigation gets a row of its own; tables of keys and requests become one card per row,
   each cell under its column's name, so no action hides beyond the right edge. */
@media (max-width: 40rem) {
  main { padding: .75rem; }
  header.top { padding: .75rem; }
  header.top nav { flex-basis: 100%; order: 1; }
  header.top > span { overflow-wrap: anywhere; }
  dl.facts { grid-template-columns: 1fr; }
  .chart text { font-size: 20px; }
  .editor { grid-template-columns: 1fr; }
  table.stack thead { position: absolute; left: -999px; }
  table.stack tr { display: block; padding: .5rem 0; border-bottom: 1px solid var(--line); }
  table.stack td { display: grid; grid-template-columns: 7rem 1fr; gap: .5rem; border: 0; padding: .2rem 0; overflow-wrap: anywhere; }
  table.stack td::before { content: attr(data-label); color: var(--muted); font-weight: 600; }
}
`;

const SCRIPT = `
"use strict";
for (const button of document.querySelectorAll("button[data-copy]")) {
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    await navigator.clipboard.writeText(source.textContent.trim());
    button.textContent = "Copied";
  });
}
// The template form's live preview: what is typed is sent as the Preview button would send it, a
// moment after typing stops; a picture replaces the last one, a refusal's details replace the errors.
const templateForm = document.getElementById("template-form");
if (templateForm) {
  const picture = document.getElementById("preview-image");
  const status = document.getElementById("preview-status");
  const errors = document.getElementById("design-errors");
  let timer, asked = 0;
  const preview = async () => {
    const mine = ++asked;
    status.textContent = "Drawing the preview…";
    const reply = await fetch("/console/templates/preview", { method: "POST", body: new URLSearchParams(new FormData(templateForm)) });
    if (mine !== asked) return;
    if ((reply.headers.get("Content-Type") || "").startsWith("image/")) {
      if (picture.src) URL.revokeObjectURL(picture.src);
      picture.src = URL.createObjectURL(await reply.blob());
      picture.hidden = false;
      errors.replaceChildren();
      status.textContent = "Preview: drawn by the service with the design's own text, marked PREVIEW and not charged.";
      return;
    }
    const page = new DOMParser().parseFromString(await reply.text(), "text/html");
    const shown = page.getElementById("design-errors");
    errors.replaceChildren(...(shown ? shown.childNodes : []));
    // Not the form's refusal (a body over the limit, a session that ended): the page's own words.
    status.textContent = shown ? "No preview: the design breaks a rule (listed under it)." : page.querySelector("main p")?.textContent || "No preview.";
  };
  templateForm.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(preview, 600); });
  document.getElementById("preview-button").addEventListener("click", (event) => { event.preventDefault(); preview(); });
  preview();
}
`;

const versioned = (text: string) => ({ text, version: createHash("sha256").update(text).digest("base64url").slice(0, 12) });

export const CONSOLE_ASSETS = {
  "console.css": { ...versioned(STYLESHEET), type: "text/css; charset=utf-8" },
  "console.js": { ...versioned(SCRIPT), type: "text/javascript; charset=utf-8" },
} as const;
