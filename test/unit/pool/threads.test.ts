/**
 * The first worker started before the program loads (pool/threads.ts): a pool made later with the
 * same thread settings takes it over and checks with it; a pool with other settings leaves it, and
 * it is stopped when nobody took it.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../../src/pool/pool.js';
import { sharedBufferOf } from '../../../src/source/read.js';
import { adoptEarlyThreads, defaultThreadSettings, startThreadsEarly, stopEarlyThreads } from '../../../src/pool/threads.js';

const sample = readFileSync(new URL('../../../docs/samples/t-shirt-M.pdf', import.meta.url));
const pools: PreflightPool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.destroy()));
  await stopEarlyThreads();
});

describe('workers started early', () => {
  it('a pool with the default settings takes the early worker over and inspects with it', async () => {
    startThreadsEarly();
    const pool = new PreflightPool();
    pools.push(pool);
    // Taken: nothing is left for another pool, nor for stopEarlyThreads to stop.
    expect(adoptEarlyThreads(defaultThreadSettings())).toBeUndefined();
    const result = await pool.inspect(sharedBufferOf(new Uint8Array(sample)), 'sample');
    expect(result.facts.pages.length).toBe(4);
  });

  it('a pool with other thread settings starts its own; the early worker stays until stopped', async () => {
    startThreadsEarly();
    const pool = new PreflightPool({ maxWorkerMemoryMb: 512 });
    pools.push(pool);
    const left = adoptEarlyThreads(defaultThreadSettings());
    expect(left).toBeDefined();
    await left!.warming;
    expect(left!.piscina.threads.length).toBe(1);
    await left!.piscina.destroy();
  });

  it('settings that only differ in what is not a thread setting (time limits, decode limits) still take it', async () => {
    startThreadsEarly();
    const pool = new PreflightPool({ taskTimeoutMs: 30_000, maxRssMb: 0, decodeLimits: { maxFileDecodedBytes: 64 * 1024 * 1024 } });
    pools.push(pool);
    expect(adoptEarlyThreads(defaultThreadSettings())).toBeUndefined();
  });

  it('stopEarlyThreads stops a worker nobody took', async () => {
    startThreadsEarly();
    await stopEarlyThreads();
    expect(adoptEarlyThreads(defaultThreadSettings())).toBeUndefined();
  });
});
