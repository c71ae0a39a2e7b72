/**
 * Text from a file (font, colour-space and layer names, metadata, file names, messages quoting
 * them) made safe to print on a terminal or into a log: escape sequences (CSI, OSC, DCS…) are
 * removed whole, other C0 and C1 control characters and DEL are dropped (tabs and line breaks
 * become spaces, so one entry stays on one line), and Unicode format controls (bidirectional
 * overrides and isolates, which can make a line read differently from what it holds, zero-width
 * and tag characters) are dropped too. HTML output has its own escaping; this is for terminals and
 * logs.
 */

// ESC or 8-bit CSI/OSC/DCS… followed by what the sequence takes: CSI parameters and final byte,
// a string up to BEL or ST (OSC, DCS, SOS, PM, APC), or a single character (two-byte escapes).
// An unterminated string loses only its introducer: what follows is plain text once that is gone.
// A string stops at the next introducer, so a line of many unterminated ones is scanned once.
const SEQUENCE = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x90\x98\x9c-\x9f]*(?:\x07|\x1b\\|\x9c)|\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
// Unicode general category Cf, bidi controls among them.
const FORMAT_CONTROLS = /\p{Cf}/gu;
const BREAKS = /[\t\n\v\f\r\x85\u2028\u2029]/g;
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;

/**
 * `text` with escape sequences, control characters and format controls (bidi overrides…) removed.
 * @example
 * safeForTerminal('Evil\x1b]0;owned\x07\u202Efdp.exe'); // 'Evilfdp.exe'
 */
export function safeForTerminal(text: string): string {
  return text.replace(SEQUENCE, '').replace(BREAKS, ' ').replace(CONTROLS, '').replace(FORMAT_CONTROLS, '');
}
