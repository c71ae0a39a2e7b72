/** The README's end-to-end example runs as written: preflight → façade → createOrder → webhooks. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('docs/example-order-flow.mjs', () => {
  it('runs end to end against the fake service', async () => {
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['docs/example-order-flow.mjs']);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/preflight: http:\/\/127\.0\.0\.1:\d+\/designs\/2001\.pdf pass/);
    expect(out.stdout).toContain('order 1 created (SHOP-2001)');
    expect(out.stdout).toMatch(/fulfilment: BC\d+ Printing=in progress\/Sewing=pending/);
    expect(out.stdout).toContain('webhooks: order.created unfulfilled, order.updated scheduled');
  }, 60_000);
});
