import { FIXABLE_CODES, FixModeSchema, isFixable, PolicyActionSchema, type FixMode, type Policy } from '../model/policy.js';
import { LOCALES, LocaleSchema, matchLocale, type Locale } from '../model/locales.js';
import { UnknownTargetError } from '../errors.js';
import type { ProfileRegistry, ResolvedTarget, Target } from '../profile/registry.js';
import { FINDING_CODE_LIST, FINDING_CODES, SeveritySettingSchema, type FindingCode, type SeveritySetting } from '../model/codes.js';
import type { Verdict } from '../report/schema.js';
import { didYouMean } from './suggest.js';
import { UsageError } from './io.js';

export { UsageError, type CliIO } from './io.js';

/** One option of a command: a string (optionally repeatable) or a boolean switch. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
}

type FlagValue<F extends FlagSpec> = F['type'] extends 'boolean' ? boolean : F['multiple'] extends true ? string[] : string;
export type FlagValues<S extends Record<string, FlagSpec>> = { -readonly [K in keyof S]?: FlagValue<S[K]> };

const looksNumeric = (s: string) => /^-\d|^-\.\d/.test(s);

/**
 * Parses a command's arguments: `--name value`, `--name=value`, switches, `-h`, and `--` before
 * positionals that start with a dash. Every mistake is one line of our own, with the nearest
 * known flag: "unknown option --skuu (did you mean --sku?)", "--sku needs a value",
 * "--json takes no value", "--out given twice".
 */
export function parseFlags<const S extends Record<string, FlagSpec>>(args: readonly string[], spec: S): { values: FlagValues<S>; positionals: string[] } {
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  const names = Object.keys(spec);
  const byShort = new Map(Object.entries(spec).flatMap(([name, f]) => (f.short ? [[f.short, name] as const] : [])));
  const unknown = (flag: string): never => {
    throw new UsageError(`unknown option ${flag}${didYouMean(flag.replace(/^-+/, '').replace(/=.*$/, ''), names, (s) => `--${s}`)}`);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      for (const rest of args.slice(i + 1)) positionals.push(rest);
      break;
    }
    if (arg === '-' || !arg.startsWith('-') || (looksNumeric(arg) && !byShort.size)) {
      positionals.push(arg);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
    } else {
      const mapped = arg.length === 2 ? byShort.get(arg[1]!) : undefined;
      if (!mapped) {
        if (looksNumeric(arg)) {
          positionals.push(arg);
          continue;
        }
        unknown(arg);
      }
      name = mapped!;
    }
    const flag = spec[name];
    if (!flag || !Object.hasOwn(spec, name)) unknown(`--${name}`);
    if (flag!.type === 'boolean') {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value, got "${inline}"`);
      values[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-' && !looksNumeric(next))) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    const prior = values[name];
    if (flag!.multiple) values[name] = [...(Array.isArray(prior) ? prior : []), value];
    else if (typeof prior === 'string' && prior !== value) throw new UsageError(`--${name} given twice ("${prior}" and "${value}")`);
    else values[name] = value;
  }
  if (!matchesSpec(values, spec)) throw new Error('parseFlags: a value does not match its flag spec');
  return { values, positionals };
}

/** Whether every value is of its flag's kind: the parsed record typed by its spec, checked, not cast. */
function matchesSpec<S extends Record<string, FlagSpec>>(values: Record<string, string | boolean | string[]>, spec: S): values is FlagValues<S> & Record<string, string | boolean | string[]> {
  return Object.entries(values).every(([name, value]) => {
    const flag = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!flag) return false;
    if (flag.type === 'boolean') return value === true;
    return flag.multiple ? Array.isArray(value) : typeof value === 'string';
  });
}

/** Reads --product/--variant or --sku into a target, or throws a UsageError. */
export function targetFrom(values: { product?: string; variant?: string; sku?: string }): Target {
  if (values.sku && (values.product || values.variant)) throw new UsageError('give either --sku or --product with --variant, not both');
  if (values.sku) return { sku: values.sku };
  if (values.product && values.variant) return { product: values.product, variant: values.variant };
  if (values.product) throw new UsageError(`--product ${values.product} needs --variant`);
  if (values.variant) throw new UsageError('--variant needs --product');
  throw new UsageError('say what the file is for: --product ID --variant ID, or --sku SKU');
}

/**
 * Reads the target and checks it against the profiles before any work starts, so a typo is one
 * line with the nearest SKU, product or variant: `unknown SKU "T-SHIRT-XXL" (did you mean "T-SHIRT-2XL"?)`.
 */
export async function resolveTarget(values: { product?: string; variant?: string; sku?: string; profiles?: string }): Promise<Target> {
  return (await lookUpTarget(values)).target;
}

/**
 * {@link resolveTarget}, answering also the profiles it read and the target it resolved: the
 * command passes both down to the check, which reads the folder and looks the target up no more.
 */
export async function lookUpTarget(values: { product?: string; variant?: string; sku?: string; profiles?: string }): Promise<{ target: Target; registry: ProfileRegistry; resolved: ResolvedTarget }> {
  const target = targetFrom(values);
  const { registryFrom } = await import('../profile/load.js');
  const registry = await registryFrom(values.profiles);
  let resolved: ResolvedTarget;
  try {
    resolved = registry.resolve(target);
  } catch (error) {
    if (!(error instanceof UnknownTargetError)) throw error;
    const products = registry.list();
    let hint = '';
    if ('sku' in target)
      hint = didYouMean(
        target.sku,
        products.flatMap((p) => p.variants.flatMap((v) => v.skus)),
      );
    else if (error.code === 'ERR_UNKNOWN_PRODUCT')
      hint = didYouMean(
        target.product,
        products.map((p) => p.id),
      );
    else {
      const { product, variant } = target;
      hint = didYouMean(variant, products.find((p) => p.id === product.trim().toLowerCase())?.variants.map((v) => v.id) ?? []);
    }
    throw new UsageError(`${error.message}${hint ? hint.replace(/^ \((.*)\)$/, ' $1').replace(/^ d/, ' D') : ''}`);
  }
  return { target, registry, resolved };
}

/**
 * Reads a numeric flag: undefined when absent, else a number within bounds, or a UsageError
 * ("--workers needs a whole number from 1 to 256, got "0"").
 */
export function numberFlag(raw: string | undefined, flag: string, { min, max, integer = true }: { min: number; max?: number; integer?: boolean }): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  const ok = raw.trim() !== '' && Number.isFinite(n) && n >= min && (max === undefined || n <= max) && (!integer || Number.isInteger(n));
  if (ok) return n;
  const kind = integer ? 'whole number' : 'number';
  throw new UsageError(`--${flag} needs a ${kind} ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}, got "${raw}"`);
}

/** The operator's memory bounds of a pool: its files' decode budget and the process's memory watchdog. */
export const POOL_LIMITS_HELP = `  --decode-budget-mb N  bytes all decoders may produce for one file, in MiB (default 1024): a file
                      over it is pdf-too-complex (the other decode limits: SECURITY.md)
  --max-rss-mb N      memory watchdog: past N MB of resident memory the task most likely to blame
                      is stopped and its file gets a finding (default 85 % of the machine's or
                      container's memory; 0 turns it off)`;

/** The pool options `--decode-budget-mb` and `--max-rss-mb` ask for (nothing when neither is given). */
export function poolLimitsFrom(values: { 'decode-budget-mb'?: string | undefined; 'max-rss-mb'?: string | undefined }): {
  decodeLimits?: { maxFileDecodedBytes: number };
  maxRssMb?: number;
} {
  const budget = numberFlag(values['decode-budget-mb'], 'decode-budget-mb', { min: 1, max: 1024 * 1024 });
  const rss = numberFlag(values['max-rss-mb'], 'max-rss-mb', { min: 0, max: 1024 * 1024 * 16 });
  return {
    ...(budget !== undefined ? { decodeLimits: { maxFileDecodedBytes: budget * 1024 * 1024 } } : {}),
    ...(rss !== undefined ? { maxRssMb: rss } : {}),
  };
}

/** What makes a run fail: `error` (default) or `warning` (warnings fail too, like ESLint's --max-warnings 0). */
export type FailOn = 'error' | 'warning';

export function failOnFlag(raw: string | undefined): FailOn {
  if (raw === undefined || raw === 'error') return 'error';
  if (raw === 'warning' || raw === 'warn') return 'warning';
  throw new UsageError(`--fail-on must be error or warning, got "${raw}"${didYouMean(raw, ['error', 'warning'])}`);
}

/** Whether a verdict fails the run under --fail-on. */
export const fails = (verdict: Verdict | 'error', failOn: FailOn): boolean => verdict === 'fail' || verdict === 'error' || (failOn === 'warning' && verdict === 'warn');

/** The one-line pointer to a command's help. */
export const FAIL_ON_HELP = `  --fail-on error|warning
                      what makes the exit status 1: an error (default), or a warning too`;

const isFindingCode = (code: string): code is FindingCode => Object.hasOwn(FINDING_CODES, code);

/** --severity CODE=LEVEL (repeatable) into per-call severities, with the nearest code for a typo. */
export function severitiesFrom(items: readonly string[] | undefined): Partial<Record<FindingCode, SeveritySetting>> {
  const severities: Partial<Record<FindingCode, SeveritySetting>> = {};
  for (const item of items ?? []) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`--severity needs CODE=LEVEL, e.g. colour-space-not-rgb=error, got "${item}"`);
    const code = item.slice(0, at);
    const level = item.slice(at + 1);
    if (!isFindingCode(code)) throw new UsageError(`--severity: unknown finding code "${code}"${didYouMean(code, FINDING_CODE_LIST)}`);
    const parsed = SeveritySettingSchema.safeParse(level);
    if (!parsed.success) throw new UsageError(`--severity ${code}: level must be error, warning, info or off, got "${level}"`);
    severities[code] = parsed.data;
  }
  return severities;
}

/** --policy CODE=ACTION (repeatable) into a per-call policy (reject, warn, fix, off), with the nearest code for a typo. */
export function policyFrom(items: readonly string[] | undefined): Policy {
  const policy: Policy = {};
  for (const item of items ?? []) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`--policy needs CODE=ACTION, e.g. page-order-mismatch=fix, got "${item}"`);
    const code = item.slice(0, at);
    const action = item.slice(at + 1);
    if (!isFindingCode(code)) throw new UsageError(`--policy: unknown finding code "${code}"${didYouMean(code, FINDING_CODE_LIST)}`);
    const parsed = PolicyActionSchema.safeParse(action);
    if (!parsed.success) throw new UsageError(`--policy ${code}: action must be reject, warn, fix or off, got "${action}"`);
    if (parsed.data === 'fix' && !isFixable(code)) throw new UsageError(`--policy ${code}=fix: print-preflight has no fix for ${code} (fixable: ${FIXABLE_CODES.join(', ')})`);
    policy[code] = parsed.data;
  }
  return policy;
}

/**
 * A flag that takes one of a few words (`--rotate cw|ccw`, `--fit contain|cover|stretch`): the
 * word typed, or a usage error that lists them.
 * @example choiceFlag('cw', 'rotate', RotateSchema.options) // 'cw'
 */
export function choiceFlag<const T extends string>(value: string | undefined, flag: string, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const found = choices.find((c) => c === value);
  if (found === undefined) throw new UsageError(`--${flag} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, got "${value}"`);
  return found;
}

/** --fix auto|approve. */
export function fixFlag(value: string | undefined): FixMode | undefined {
  if (value === undefined) return undefined;
  const parsed = FixModeSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`--fix must be auto or approve, got "${value}"`);
  return parsed.data;
}

/**
 * --locale: one of the languages (`en`, `pt`, `pt-PT`, `pt-BR`, `es`, `fr`, `de`, `it`), or a
 * BCP 47 tag matched to one (`es-MX` → `es`, `pt_br` → `pt-BR`); another language is a usage error.
 */
export function localeFlag(value: string | undefined): Locale | undefined {
  if (value === undefined) return undefined;
  const parsed = LocaleSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const matched = matchLocale(value);
  if (!matched) throw new UsageError(`--locale must be one of ${LOCALES.join(', ')} (or a regional tag of one, such as es-MX), got "${value}"`);
  return matched;
}
