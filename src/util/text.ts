/**
 * Locale-free formatting and ordering. `toLocaleString` and `localeCompare` load ICU's number
 * formatter or collator on their first call in a process (~20 ms each, on every CLI run and in
 * every worker), and their output follows the machine's locale; these are neither.
 */

/**
 * An integer with thousands separated by commas, as `toLocaleString('en-US')` writes it:
 * `grouped(1234567)` → `"1,234,567"`. Integers are exact to 2^53; a fraction (below a billion) keeps at
 * most three decimals.
 */
export function grouped(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  const [whole = '0', fraction] = Math.abs(n)
    .toFixed(3)
    .replace(/\.?0+$/, '')
    .split('.');
  // Beyond 1e21 String() switches to exponent notation: leave such a number as it is.
  if (!/^\d+$/.test(whole)) return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
  let out = '';
  for (let i = whole.length; i > 0; i -= 3) out = `${whole.slice(Math.max(0, i - 3), i)}${out ? `,${out}` : ''}`;
  return `${sign}${out}${fraction ? `.${fraction}` : ''}`;
}

/** Code-unit order: the same on every machine, and no collator to load. */
export function ordinal(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Unicode format controls (general category Cf): bidi embeddings, overrides, isolates and marks
 * (U+202A–202E, U+2066–2069, U+200E/F, U+061C), zero-width spaces and joiners, the BOM, soft
 * hyphens, tag characters. Invisible, and some make a text read differently from what it holds
 * (`invoice\u202Efdp.exe` shows as "invoiceexe.pdf").
 */
const FORMAT_CONTROLS = /\p{Cf}/gu;
const HAS_FORMAT_CONTROL = /\p{Cf}/u;

/**
 * A name or message fit to show: format controls removed.
 * @example
 * withoutFormatControls('invoice\u202Efdp.exe'); // 'invoicefdp.exe'
 */
export function withoutFormatControls(text: string): string {
  return HAS_FORMAT_CONTROL.test(text) ? text.replace(FORMAT_CONTROLS, '') : text;
}

/**
 * Every string inside plain JSON data (objects, arrays) without format controls; other values as
 * they are. Returns the same object when nothing changes.
 */
export function withoutFormatControlsDeep<T>(value: T): T {
  if (typeof value === 'string') return withoutFormatControls(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const c = withoutFormatControlsDeep(v);
      if (c !== v) changed = true;
      return c;
    });
    return (changed ? out : value) as T;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const c = withoutFormatControlsDeep(v);
      if (c !== v) changed = true;
      out[k] = c;
    }
    return (changed ? out : value) as T;
  }
  return value;
}

// C1 controls (an 8-bit CSI is U+009B), line and paragraph separators and format controls: JSON
// leaves them raw, and a terminal showing the log acts on them.
const RAW_IN_JSON = /[\u0080-\u009f\u2028\u2029\p{Cf}]/gu;

/**
 * A JSON text with the characters JSON leaves raw but a terminal acts on written as `\uXXXX`
 * escapes: the same value when parsed, and a log line that reads as what it holds.
 * @example
 * escapeForLog(JSON.stringify({ name: 'a\u202Eb' })); // '{"name":"a\\u202eb"}'
 */
export function escapeForLog(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

const HTML_SPECIAL: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text for an HTML element or a quoted attribute: markup characters escaped, format and control
 * characters removed (a file name cannot be shown reversed or padded with invisible characters, and
 * no ESC or BEL reaches a page or a terminal that shows its source).
 * @example
 * escapeHtml('<b>\u202Efdp.exe\x1b[31m'); // '&lt;b&gt;fdp.exe[31m'
 */
export function escapeHtml(text: string): string {
  return withoutFormatControls(text)
    .replace(HTML_CONTROLS, '')
    .replace(/[&<>"']/g, (c) => HTML_SPECIAL[c]!);
}

/** C0 and C1 control characters and DEL, but tab and line breaks: never text in HTML (ESC, BEL from a font or spot colour name). */
const HTML_CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
