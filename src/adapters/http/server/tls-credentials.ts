import fs from "node:fs";
import path from "node:path";
import selfsigned from "selfsigned";

/**
 * The certificate and key the HTTPS listener serves: from TLS_CERT/TLS_KEY when configured,
 * else a self-signed pair made once under DATA_DIR/tls for local use (the log says so).
 */
export interface TlsCredentials {
  readonly cert: string;
  readonly key: string;
  readonly selfSigned: boolean;
  readonly certPath: string;
}

export const loadTlsCredentials = async (options: {
  readonly tlsCert: string | undefined;
  readonly tlsKey: string | undefined;
  readonly dataDir: string;
  readonly host: string;
}): Promise<TlsCredentials> => {
  if (options.tlsCert && options.tlsKey) {
    return {
      cert: fs.readFileSync(options.tlsCert, "utf8"),
      key: fs.readFileSync(options.tlsKey, "utf8"),
      selfSigned: false,
      certPath: options.tlsCert,
    };
  }
  const dir = path.join(options.dataDir, "tls");
  const certPath = path.join(dir, "self-signed-cert.pem");
  const keyPath = path.join(dir, "self-signed-key.pem");
  if (!fs.existsSync(certPath) || !fs.existsSync(keyPath)) {
    const notAfter = new Date();
    notAfter.setFullYear(notAfter.getFullYear() + 1);
    const pems = await selfsigned.generate([{ name: "commonName", value: "localhost" }], {
      keyType: "ec",
      curve: "P-256",
      algorithm: "sha256",
      notAfterDate: notAfter,
      extensions: [
        {
          name: "subjectAltName",
          altNames: [
            { type: 2, value: "localhost" },
            { type: 7, ip: "127.0.0.1" },
            { type: 7, ip: "::1" },
            ...(options.host && !["127.0.0.1", "::1", "localhost", "0.0.0.0", "::"].includes(options.host)
              ? [/^[\d.:]+$/.test(options.host) ? { type: 7 as const, ip: options.host } : { type: 2 as const, value: options.host }]
              : []),
          ],
        },
      ],
    });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(keyPath, pems.private, { mode: 0o600 });
    fs.writeFileSync(certPath, pems.cert);
  }
  return { cert: fs.readFileSync(certPath, "utf8"), key: fs.readFileSync(keyPath, "utf8"), selfSigned: true, certPath };
};
