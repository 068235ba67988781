import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from "testcontainers";

/**
 * A KurrentDB server for tests: the one KURRENTDB_URL names, else a throwaway container where a
 * Docker engine answers (testcontainers removes it when the tests end, even if they crash), else none.
 */
export const KURRENTDB_IMAGE = "kurrentplatform/kurrentdb:25.0";

export type KurrentDbSource =
  { readonly kind: "url"; readonly url: string } | { readonly kind: "container" } | { readonly kind: "none"; readonly reason: string };

export interface KurrentDbServer {
  readonly url: string;
  readonly stop: () => Promise<void>;
}

export const findKurrentDb = async (): Promise<KurrentDbSource> => {
  const url = process.env["KURRENTDB_URL"];
  if (url !== undefined && url !== "") return { kind: "url", url };
  try {
    await getContainerRuntimeClient();
    return { kind: "container" };
  } catch (error) {
    return {
      kind: "none",
      reason: `KURRENTDB_URL is not set and no Docker engine answers (${error instanceof Error ? error.message : String(error)}); set KURRENTDB_URL=kurrentdb://host:2113?tls=false or start Docker to run it`,
    };
  }
};

export const startKurrentDb = async (source: Exclude<KurrentDbSource, { kind: "none" }>): Promise<KurrentDbServer> => {
  if (source.kind === "url") return { url: source.url, stop: async () => undefined };
  const container: StartedTestContainer = await new GenericContainer(KURRENTDB_IMAGE)
    .withEnvironment({
      KURRENTDB_CLUSTER_SIZE: "1",
      // A disposable single node: no TLS or users, events in memory only.
      KURRENTDB_INSECURE: "true",
      KURRENTDB_MEM_DB: "true",
      KURRENTDB_RUN_PROJECTIONS: "None",
    })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(180_000)
    .start();
  return {
    url: `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
};
