import v8 from "node:v8";

/**
 * By default V8 runs a full mark-compact whenever memory held outside its heap (Buffers,
 * external strings) grows by a fixed step. A /generate request moves ~16 MB of it (the body as
 * read from TLS, its base64 text, the decoded image, the raster), so the service ran a full GC
 * for every other request: measured 0.56 per request and ~20 ms each, on a 40 MB heap. Counted
 * within the heap's own growing limit instead, that memory triggers one every eight to ten
 * requests (0.10-0.13, 3-5 ms per request), for ~100-150 MB more peak resident memory under
 * sustained image load (1,060-1,110 MiB became 1,150-1,250 in the generate benchmark).
 * Under a burst of large uploads that memory also let the heap's limit grow by 100 % per full GC,
 * so garbage Buffers piled up: 120 concurrent 3000×2000 JPEGs peaked at 1,155-1,548 MiB above
 * idle. Growing by 20 % at a time keeps the peak lower at the same generate throughput (see
 * docs/benchmarks.md).
 * Imported first by main.ts, so that it holds from the first allocation. A Node whose V8 lacks
 * the flag prints that it does not know it, and runs on with the default.
 */
v8.setFlagsFromString("--external-memory-accounted-in-global-limit");
v8.setFlagsFromString("--heap-growing-percent=20");
