
/** Misuse of the command line: exit status 2 with a one-line reason. */
export class UsageError extends Error {}

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTTY: boolean;
}

/** Runs node's parseArgs (strict) and turns its errors into UsageErrors. */
export function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
}

/** Reads --product/--variant or --sku into a target, or throws a UsageError. */
export function targetFrom(values: { product?: string; variant?: string; sku?: string }) {
  if (values.sku && (values.product || values.variant)) throw new UsageError('give either --sku or --product with --variant, not both');
  if (values.sku) return { sku: values.sku };
  if (values.product && values.variant) return { product: values.product, variant: values.variant };
  if (values.product) throw new UsageError(`--product ${values.product} needs --variant`);
  if (values.variant) throw new UsageError('--variant needs --product');
  throw new UsageError('say what the file is for: --product ID --variant ID, or --sku SKU');
}

/**
 * Reads a numeric flag: undefined when absent, else a number within bounds, or a UsageError
 * ("--workers needs a whole number from 1 to 256, got "0"").
 */
export function numberFlag(raw: string | undefined, flag: string, { min, max, integer = true }: { min: number; max?: number; integer?: boolean }): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  const ok = Number.isFinite(n) && n >= min && (max === undefined || n <= max) && (!integer || Number.isInteger(n));
  if (ok) return n;
  const kind = integer ? 'whole number' : 'number';
  throw new UsageError(`--${flag} needs a ${kind} ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}, got "${raw}"`);
}
