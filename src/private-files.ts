/**
 * Everything this process creates (the event and projection stores and their WAL files, results,
 * the TLS key, the server secret) is its own: files 0600, folders 0700, whatever the umask of
 * the shell or container that started it. Imported first by main.ts and the CLI.
 */
process.umask(0o077);
