import { accept, type Decider, type Decision, reject } from "../decider.ts";
import { type Design, designIssues, TEMPLATE_NAME_PATTERN, TEMPLATE_NAME_RULE } from "./account-template-design.ts";

/**
 * The templates an account made of its own (issue 27). All of one account's templates are one
 * stream, `templates-<accountId>`, so the plan's count and the uniqueness of names are decided on
 * one state: two creations racing meet the store's expected revision, never both pass the limit.
 * Who acted rides in every event's metadata, as on every stream (command-handler.ts).
 */
export const accountTemplatesStream = (accountId: string): string => `templates-${accountId}`;

export interface TemplateVersion {
  readonly templateId: string;
  readonly name: string;
  /** 1 when created, one more on each revision. */
  readonly version: number;
  readonly design: Design;
  readonly createdAt: string;
  readonly updatedAt: string;
}

type Versioned = { accountId: string; templateId: string; name: string; version: number; design: Design; at: string };

export type AccountTemplateEvent =
  | { readonly type: "TemplateCreated"; readonly data: Versioned }
  | { readonly type: "TemplateRevised"; readonly data: Versioned }
  | { readonly type: "TemplateDeleted"; readonly data: { accountId: string; templateId: string; name: string; version: number; at: string } };

export type AccountTemplateCommand =
  | {
      readonly type: "CreateTemplate";
      readonly accountId: string;
      readonly templateId: string;
      readonly name: string;
      readonly design: Design;
      /** The plan's number of templates; null: unlimited. */
      readonly limit: number | null;
      readonly now: Date;
    }
  | { readonly type: "ReviseTemplate"; readonly templateId: string; readonly name: string; readonly design: Design; readonly now: Date }
  | { readonly type: "DeleteTemplate"; readonly templateId: string; readonly now: Date };

export interface AccountTemplatesState {
  /** Known from the first event; every command after it concerns a template that exists. */
  readonly accountId: string;
  /** The live templates, each at its newest version. */
  readonly templates: ReadonlyMap<string, TemplateVersion>;
  /** Ids once used: a deleted template's id is never given to another. */
  readonly usedIds: ReadonlySet<string>;
}

const nameTaken = (state: AccountTemplatesState, name: string, except?: string) =>
  [...state.templates.values()].some((template) => template.name === name && template.templateId !== except);

/** The body's own rules, as a rejection; the use case checks them first to answer with every detail. */
const invalid = (name: string, design: Design): Decision<AccountTemplateEvent> | undefined => {
  if (!TEMPLATE_NAME_PATTERN.test(name)) return reject("INVALID_TEMPLATE", `name: ${TEMPLATE_NAME_RULE}`);
  const issues = designIssues(design);
  return issues.length > 0 ? reject("INVALID_TEMPLATE", issues.map(({ path, message }) => `${path}: ${message}`).join("; ")) : undefined;
};

const decide = (command: AccountTemplateCommand, state: AccountTemplatesState): Decision<AccountTemplateEvent> => {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateTemplate": {
      const { accountId, templateId, name, design, limit } = command;
      if (state.usedIds.has(templateId)) return reject("TEMPLATE_EXISTS", `template ${templateId} already exists`);
      const refused = invalid(name, design);
      if (refused) return refused;
      if (limit !== null && state.templates.size >= limit) return reject("TEMPLATE_LIMIT_REACHED", `the plan allows ${limit} templates`);
      if (nameTaken(state, name)) return reject("TEMPLATE_NAME_TAKEN", `another template is named ${name}`);
      return accept({ type: "TemplateCreated", data: { accountId, templateId, name, version: 1, design, at } });
    }
    case "ReviseTemplate": {
      const current = state.templates.get(command.templateId);
      if (current === undefined) return reject("TEMPLATE_NOT_FOUND", `no template ${command.templateId}`);
      const refused = invalid(command.name, command.design);
      if (refused) return refused;
      if (nameTaken(state, command.name, current.templateId)) return reject("TEMPLATE_NAME_TAKEN", `another template is named ${command.name}`);
      const { accountId } = state;
      const { templateId } = current;
      return accept({ type: "TemplateRevised", data: { accountId, templateId, name: command.name, version: current.version + 1, design: command.design, at } });
    }
    case "DeleteTemplate": {
      const current = state.templates.get(command.templateId);
      if (current === undefined) return reject("TEMPLATE_NOT_FOUND", `no template ${command.templateId}`);
      const { templateId, name, version } = current;
      return accept({ type: "TemplateDeleted", data: { accountId: state.accountId, templateId, name, version, at } });
    }
  }
};

const evolve = (state: AccountTemplatesState, event: AccountTemplateEvent): AccountTemplatesState => {
  const templates = new Map(state.templates);
  const { templateId, at } = event.data;
  switch (event.type) {
    case "TemplateCreated":
    case "TemplateRevised": {
      const { name, version, design } = event.data;
      templates.set(templateId, { templateId, name, version, design, createdAt: state.templates.get(templateId)?.createdAt ?? at, updatedAt: at });
      break;
    }
    case "TemplateDeleted":
      templates.delete(templateId);
  }
  return { accountId: event.data.accountId, templates, usedIds: new Set(state.usedIds).add(templateId) };
};

export const accountTemplateDecider: Decider<AccountTemplateCommand, AccountTemplateEvent, AccountTemplatesState> = {
  decide,
  evolve,
  initialState: () => ({ accountId: "", templates: new Map(), usedIds: new Set() }),
};

/** A template by its id or its name, as `/generate` and the routes refer to it. */
export const findAccountTemplate = (state: AccountTemplatesState, idOrName: string): TemplateVersion | undefined =>
  state.templates.get(idOrName) ?? [...state.templates.values()].find((template) => template.name === idOrName);
