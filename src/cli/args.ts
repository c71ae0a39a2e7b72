
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
