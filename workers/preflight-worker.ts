/** Piscina entry point: a thin shim over src/pool/worker-main (compiled to dist/workers/). */
import module from 'node:module';

// As in bin/print-preflight.js: V8's code cache on disk where Node has one (≥ 22.8), before the
// worker's modules load; skipped where Node has no such call.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { default: handle } = await import('../src/pool/worker-main.js');
export default handle;
