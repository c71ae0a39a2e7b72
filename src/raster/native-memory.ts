/**
 * @napi-rs/canvas (Skia, which pdf.js draws on) allocates through mimalloc, which by default
 * commits a 1 GiB arena the moment the library loads. It is never touched (resident memory stays
 * small), but it is private writable memory: a memory limit on the process (`prlimit --data`,
 * `ulimit -d`, overcommit accounting) counts 1 GiB per worker that draws with pdf.js, and a batch
 * with two such workers failed its allocations — a crash — under a 2 GiB limit. Asked before the
 * library loads, mimalloc reserves its arena and commits it as it is used.
 *
 * The environment is the process's: set from the main thread (a worker thread's `process.env` is
 * its own copy), before the pool starts workers or the library is loaded. A value the operator set
 * is kept.
 */
export function commitNativeMemoryOnDemand(): void {
  process.env.MIMALLOC_ARENA_EAGER_COMMIT ??= '0';
}
