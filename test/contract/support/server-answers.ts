import { connect } from "node:net";

/**
 * Why a contract suite for a server-backed adapter skips, or undefined when the server answers: a
 * TCP connection to the URL's host and port within a second. The reason is printed, so that a run
 * without the server says what it did not check rather than passing quietly.
 */
export const skipUnlessServerAnswers = async (what: string, url: string, defaultPort: number): Promise<string | undefined> => {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[(.*)\]$/, "$1") || "127.0.0.1";
  const answers = await new Promise<boolean>((resolve) => {
    const socket = connect({ host, port: Number(port || defaultPort), timeout: 1_000 });
    const settle = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.once("connect", () => settle(true));
    socket.once("timeout", () => settle(false));
    socket.once("error", () => settle(false));
  });
  if (answers) return undefined;
  const reason = `${what} at ${host}:${port || defaultPort} does not answer`;
  console.warn(`[contract] ${what}: SKIPPED — ${reason}`);
  return reason;
};
