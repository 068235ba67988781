import { Context as Annotations } from "effect";
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api";
import { RequiresScope } from "./key-scope.ts";

type Operation = { description?: string; operationId?: string; [extension: `x-${string}`]: unknown };

/**
 * Each operation that needs a key scope says so in the document: a sentence in its description and
 * `x-key-scope` for tools, from the endpoint's RequiresScope annotation (the one mount.ts enforces).
 */
export const declareKeyScopes = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  paths: Record<string, Record<string, Operation>>,
): void => {
  const scopes = new Map<string, string>();
  for (const group of Object.values(api.groups as unknown as Record<string, HttpApiGroup.Top>)) {
    for (const endpoint of Object.values(group.endpoints) as Array<HttpApiEndpoint.Top>) {
      const scope = Annotations.getOrUndefined(endpoint.annotations, RequiresScope);
      if (scope !== undefined) scopes.set(endpoint.identifier, scope);
    }
  }
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const scope = operation.operationId === undefined ? undefined : scopes.get(operation.operationId);
      if (scope === undefined) continue;
      const sentence = `Needs the key scope ${scope} (a key made with --scopes that leaves it out: 403 INSUFFICIENT_PERMISSIONS).`;
      operation.description = operation.description === undefined ? sentence : `${operation.description} ${sentence}`;
      operation["x-key-scope"] = scope;
    }
  }
};
