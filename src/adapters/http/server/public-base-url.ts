/** The origin clients reach when PUBLIC_BASE_URL is unset: the bound host and HTTPS port (a wildcard host reads as localhost). */
export const defaultPublicBaseUrl = (host: string, httpsPort: number): string => {
  const shown = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "localhost" : host;
  return `https://${shown}:${httpsPort}`;
};
