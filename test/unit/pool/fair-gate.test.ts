/**
 * The pool's queue (pool/fair-gate.ts): fair between lanes (a tenant's slow files never make another
 * tenant wait for more than one task), within the memory the running tasks declared, never
 * skipping a large task for small ones; and the same through a real pool of one worker, where a
 * lane's tasks interleave with another's in the order the gate gives.
 */
import { readFileSync } from 'node:fs';
import { heavyPdf } from '../../helpers/heavy-pdf.js';
import { afterAll, describe, expect, it } from 'vitest';
import { FairGate, GateAborted, currentPoolLane, inPoolLane } from '../../../src/pool/fair-gate.js';
import { PreflightPool } from '../../../src/pool/pool.js';

/** Enters the gate and records when the task is let through. */
function recorder(gate: FairGate) {
  const order: string[] = [];
  const releases = new Map<string, () => void>();
  const enter = (name: string, lane: string, estimate = 0, signal?: AbortSignal) =>
    gate.enter(lane, estimate, signal).then((release) => {
      order.push(name);
      releases.set(name, release);
    });
  const release = async (name: string) => {
    releases.get(name)!();
    await new Promise((r) => setImmediate(r));
  };
  return { order, enter, release, settle: () => new Promise((r) => setImmediate(r)) };
}

describe('FairGate', () => {
  it("gives a free worker to the lane served longest ago: one lane's queue does not hold another's task", async () => {
    const gate = new FairGate(1, Number.POSITIVE_INFINITY);
    const r = recorder(gate);
    for (const name of ['a1', 'a2', 'a3']) void r.enter(name, 'A');
    void r.enter('b1', 'B');
    await r.settle();
    expect(r.order).toEqual(['a1']);
    expect(gate.queued).toBe(3);
    await r.release('a1');
    expect(r.order).toEqual(['a1', 'b1']);
    await r.release('b1');
    await r.release('a2');
    expect(r.order).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it("bounds a lane's running tasks by its share while another lane waits, and lets it take every worker alone", async () => {
    const gate = new FairGate(2, Number.POSITIVE_INFINITY);
    const r = recorder(gate);
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) void r.enter(name, 'A');
    await r.settle();
    expect(r.order).toEqual(['a1', 'a2']); // alone: both workers
    void r.enter('b1', 'B');
    void r.enter('b2', 'B');
    await r.release('a1');
    expect(r.order.at(-1)).toBe('b1');
    // A and B run one each now: the next place goes to the lane served longest ago (A).
    await r.release('a2');
    expect(r.order.at(-1)).toBe('a3');
    // B runs its share (one of two) while A still waits: a place A frees goes to A again.
    await r.release('a3');
    expect(r.order.at(-1)).toBe('a4');
    await r.release('b1');
    expect(r.order).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'b2']);
  });

  it('lets a task go only within the memory budget, never skips a large task for a small one, and runs one larger than the budget alone', async () => {
    const gate = new FairGate(3, 100);
    const r = recorder(gate);
    void r.enter('big1', 'A', 60);
    void r.enter('big2', 'A', 60);
    void r.enter('small', 'A', 10);
    await r.settle();
    expect(r.order).toEqual(['big1']); // a worker is free, the memory is not
    await r.release('big1');
    expect(r.order).toEqual(['big1', 'big2', 'small']);
    await r.release('big2');
    await r.release('small');
    void r.enter('huge', 'A', 500);
    await r.settle();
    expect(r.order.at(-1)).toBe('huge');
  });

  it('starts a lane with nothing running on the spare worker at once, and keeps the spare for such lanes', async () => {
    const gate = new FairGate(2, Number.POSITIVE_INFINITY, { spare: 1 });
    const r = recorder(gate);
    for (const name of ['a1', 'a2', 'a3']) void r.enter(name, 'A');
    await r.settle();
    expect(r.order).toEqual(['a1', 'a2']); // A alone: its two workers, never the spare
    void r.enter('b1', 'B');
    void r.enter('b2', 'B');
    await r.settle();
    expect(r.order).toEqual(['a1', 'a2', 'b1']); // B had nothing running: the spare, at once
    void r.enter('c1', 'C');
    await r.settle();
    expect(r.order).toEqual(['a1', 'a2', 'b1']); // the spare is taken: C waits for a place
    await r.release('a1');
    expect(r.order.at(-1)).toBe('c1'); // C has nothing running: it goes first
    await r.release('a2');
    // A has nothing running now: it takes the spare, as B and C did — one thread each.
    expect(r.order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3']);
    await r.release('b1');
    expect(r.order.at(-1)).toBe('b2');
    expect(gate.queued).toBe(0);
  });

  it('drops a task whose signal aborts while it waits; the others go on', async () => {
    const gate = new FairGate(1, Number.POSITIVE_INFINITY);
    const r = recorder(gate);
    void r.enter('first', 'A');
    const stop = new AbortController();
    const dropped = r.enter('dropped', 'A', 0, stop.signal);
    void r.enter('next', 'A');
    stop.abort();
    await expect(dropped).rejects.toBeInstanceOf(GateAborted);
    await r.release('first');
    expect(r.order).toEqual(['first', 'next']);
    expect(gate.queued).toBe(0);
  });

  it('keeps the lane of the calling context across awaits', async () => {
    expect(currentPoolLane()).toBe('');
    const seen = await inPoolLane('tenant-x', async () => {
      await new Promise((r) => setTimeout(r, 1));
      return currentPoolLane();
    });
    expect(seen).toBe('tenant-x');
  });
});

describe('a real pool of one worker', () => {
  const pool = new PreflightPool({ maxThreads: 1 });
  afterAll(() => pool.destroy());

  it("starts another lane's task at once on the spare worker, ahead of the first lane's queue", async () => {
    const light = readFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf');
    // Each of lane A's files takes its worker ~0.8 s (1,000,000 operators scanned up to the page's
    // budget), lane B's ~20 ms: B's one file ends first by a margin of some 40 times unless it waits
    // behind A's queue — the order does not hang on how fast a loaded machine runs either.
    const heavy = heavyPdf(1_000_000);
    const shared = (file: Uint8Array) => {
      const out = new SharedArrayBuffer(file.length);
      new Uint8Array(out).set(file);
      return out;
    };
    // Two workers up (the second on the spare, for a second lane), so the order below is the gate's alone.
    await Promise.all([inPoolLane('x', () => pool.inspect(shared(light), 'warm-x')), inPoolLane('y', () => pool.inspect(shared(light), 'warm-y'))]);
    const done: string[] = [];
    const task = (name: string, lane: string, file: Uint8Array) => inPoolLane(lane, () => pool.inspect(shared(file), name).then(() => done.push(name)));
    await Promise.all([task('a1', 'A', heavy), task('a2', 'A', heavy), task('a3', 'A', heavy), task('b1', 'B', light)]);
    // b1 runs beside a1 (on the spare worker); A's queue follows one at a time.
    expect(done).toEqual(['b1', 'a1', 'a2', 'a3']);
  }, 60_000);
});
