/** Piscina entry point: a thin shim over src/pool/worker-main (compiled to dist/workers/). */
export { default } from '../src/pool/worker-main.js';
