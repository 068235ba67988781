/**
 * HTML built from template literals: every interpolated value is escaped unless it is already
 * markup made here (SafeHtml), so text from the event store or a form can never become markup.
 */
export class SafeHtml {
  readonly markup: string;
  constructor(markup: string) {
    this.markup = markup;
  }
  toString(): string {
    return this.markup;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

type Interpolated = SafeHtml | string | number | null | undefined | false | ReadonlyArray<Interpolated>;

const render = (value: Interpolated): string => {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
};

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolated>): SafeHtml =>
  new SafeHtml(strings.reduce((out, text, index) => out + text + (index < values.length ? render(values[index]!) : ""), ""));
