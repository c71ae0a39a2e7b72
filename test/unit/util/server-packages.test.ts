import { describe, expect, it } from 'vitest';
import { isMissingPackage, requireServerPackages } from '../../../src/util/server-packages.js';

async function importError(name: string): Promise<unknown> {
  try {
    await import(name);
  } catch (error) {
    return error;
  }
  throw new Error(`${name} was imported`);
}

describe('isMissingPackage', () => {
  it('is true when the package itself is not installed', async () => {
    const error = await importError('print-preflight-no-such-package');
    expect(isMissingPackage(error, 'print-preflight-no-such-package')).toBe(true);
  });

  it('is false when the package is installed and something inside it is missing, whatever the message says', () => {
    // The message names the package, as Node's does: the answer must not come from it.
    const error = Object.assign(new Error("Cannot find package 'fastify'"), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(isMissingPackage(error, 'fastify')).toBe(false);
  });

  it('is false for any other error', () => {
    expect(isMissingPackage(new SyntaxError('Unexpected token'), 'print-preflight-no-such-package')).toBe(false);
    expect(isMissingPackage(null, 'x')).toBe(false);
  });

  it('lets requireServerPackages pass when the packages are installed', async () => {
    await expect(requireServerPackages('test', ['fastify', 'prom-client'])).resolves.toBeUndefined();
  });
});
