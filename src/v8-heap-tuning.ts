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
 * idle. Growing by 50 % at a time keeps that burst at idle + 1,015-1,038 MiB. 20 % (idle + 750-850)
 * was too tight under steady load: a limit set just after a full GC, when few uploads were in
 * flight, sat barely above what four requests in flight hold (the Buffers of a live request are not
 * garbage), and the service fell into a full GC every four requests instead of every ten or twelve
 * (--trace-incremental-marking: "global allocation limit", 91 of 95 MB), 9.3-10.1 requests/s
 * against 10.7-11.3 at concurrency 4 on 2 cores, from one start to the next; at 50 %, 11.0-11.2
 * every time (docs/operations.md, Memory).
 * Imported first by main.ts, so that it holds from the first allocation. A Node whose V8 lacks
 * the flag prints that it does not know it, and runs on with the default.
 */
v8.setFlagsFromString("--external-memory-accounted-in-global-limit");
v8.setFlagsFromString("--heap-growing-percent=50");
