/** Word-wrapping for terminal output, with no dependency (the CLI's --help path loads it). */

const ANSI = /\x1b\[[0-9;]*m/g;
const visible = (s: string) => s.replace(ANSI, '').length;

/** Word-wraps a line to `width` visible columns; continuation lines start with `indent`. */
export function wrap(text: string, width: number, indent = ''): string[] {
  const lead = /^\s*/.exec(text)![0];
  // A number stays with its unit, and "2040 × 2040 mm" stays on one line.
  const kept = text
    .slice(lead.length)
    .replace(/(\d) (?=(?:mm|ppi|px|%|kB|MB|GB|bytes)\b|%)/g, '$1\u00a0')
    .replace(/(\d) × (?=\d)/g, '$1\u00a0×\u00a0');
  const words = kept.split(/ +/);
  const out: string[] = [];
  let line = lead;
  let bare = true;
  for (const word of words) {
    if (!bare && visible(line) + 1 + visible(word) > width) {
      out.push(line);
      line = indent + word;
    } else line = bare ? line + word : `${line} ${word}`;
    bare = false;
  }
  out.push(line);
  // A single word longer than the line is cut rather than overflowing the terminal.
  return out.map((l) => l.replace(/\u00a0/g, ' ')).map((l) => (visible(l) > width && !l.includes('\x1b[') ? `${l.slice(0, width - 1)}…` : l));
}
