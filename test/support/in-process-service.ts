import { Effect } from "effect";
import { makeLogger } from "../../src/adapters/http/server/logger.ts";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { createKey, openAccount } from "../../src/application/access/accounts.ts";
import { loadConfig } from "../../src/config.ts";
import type { PlanId } from "../../src/domain/plan.ts";
import { type HttpService, startHttpService } from "../../src/http-service.ts";
import { testServerLayer } from "../../src/server-composition.ts";
import { HttpsClient } from "./https-client.ts";
import { makeDataDir } from "./service-process.ts";

const byTest = { kind: "service", task: "in-process HTTP test" } as const;

export interface InProcessService {
  readonly service: HttpService;
  readonly client: HttpsClient;
  /** An account on `plan` with one key, once the key directory knows it. */
  readonly provision: (plan: PlanId) => Promise<{ readonly accountId: string; readonly key: string }>;
  readonly stop: () => Promise<void>;
}

/**
 * The HTTPS service in the test's own process, built from the Test layer (composition.ts): the real
 * app over real HTTPS on free ports, no child process. For tests of routes; a test of the process
 * itself (start, signals, logs on stdout) uses service-process.ts.
 */
export const startInProcess = async (env: Readonly<Record<string, string>> = {}): Promise<InProcessService> => {
  const config = loadConfig({ DATA_DIR: makeDataDir(), PORT: "0", HTTP_PORT: "0", OCR_WORKERS: "1", ...env }, 2);
  const service = await startHttpService({ config, secrets: loadServerSecrets(config), logger: makeLogger("silent"), layer: testServerLayer });
  const client = new HttpsClient(service.servers.publicBaseUrl, Buffer.from(service.tls.cert));
  await client.contract();
  let accounts = 0;
  const provision = async (plan: PlanId) => {
    const created = await service.runtime.runPromise(
      Effect.gen(function* () {
        const account = yield* openAccount({ email: `${plan}-${++accounts}@example.com`, name: "In-process test", plan }, byTest);
        return { accountId: account.id, key: (yield* createKey(account.id, "test", byTest)).key };
      }),
    );
    // The key directory follows the store within a second.
    for (let i = 0; i < 50 && (await client.send("GET", "/api/user/profile", { key: created.key })).status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return created;
  };
  return {
    service,
    client,
    provision,
    stop: async () => {
      client.close();
      await service.stop(1000);
    },
  };
};
