import http from "node:http";
import { createIPX, createIPXNodeServer, ipxFSStorage } from "ipx";

/**
 * unjs/ipx as a customer would self-host it (the optimizer behind Nuxt Image): its own process,
 * plain HTTP, sources read from a folder. Prints `{"port": N}` once listening.
 * Usage: node bench/support/ipx-server.ts <folder>
 */
const dir = process.argv[2];
if (dir === undefined) throw new Error("usage: ipx-server.ts <folder>");
const server = http.createServer(createIPXNodeServer(createIPX({ storage: ipxFSStorage({ dir }) })));
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("ipx: no TCP address");
  console.log(JSON.stringify({ port: address.port }));
});
