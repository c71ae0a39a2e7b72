/**
 * The command line as a daily user meets it: typos, strictness, pipes that close early, written
 * files named, safe writes — through the compiled bin, and in a real 80-column tmux terminal.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = resolve('bin/print-preflight.js');
const f = (name: string) => `test/corpus/files/${name}`;
const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const tmp = () => mkdtempSync(join(tmpdir(), 'pp-cli-'));

describe('typos get our own one-line error and the nearest word', () => {
  it.each([
    [['chek', f('gs-duvet-exact.pdf'), '--sku', 'DUVET-COVER-200X200'], /^print-preflight: unknown command "chek" \(did you mean "check"\?\)\. Commands: /],
    [['check', f('gs-duvet-exact.pdf'), '--skuu', 'T-SHIRT-M'], /^print-preflight check: unknown option --skuu \(did you mean --sku\?\)$/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-XXL'], /Unknown SKU "T-SHIRT-XXL".* Did you mean "T-SHIRT-(2XL|XL)"\?$/],
    [['check', f('gs-duvet-exact.pdf'), '--product', 'duvet-cvoer', '--variant', '200x200'], /Unknown product "duvet-cvoer".* Did you mean "duvet-cover"\?$/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--min-ppi', '-5'], /^print-preflight check: --min-ppi needs a number ≥ 0, got "-5"$/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--min-ppi'], /^print-preflight check: --min-ppi needs a value$/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', '--json'], /^print-preflight check: --sku needs a value$/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--json=yes'], /^print-preflight check: --json takes no value, got "yes"$/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--fail-on', 'warnings'], /--fail-on must be error or warning, got "warnings" \(did you mean "warning"\?\)$/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--severity', 'colour-space-not-rbg=error'], /unknown finding code "colour-space-not-rbg" \(did you mean "colour-space-not-rgb"\?\)$/],
    [['fix', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--out', 'x.pdf', '--rotat', 'cw'], /unknown option --rotat \(did you mean --rotate\?\)$/],
    [['batch', 'test/corpus/files', '--out', '/tmp/x', '--concurency', '2'], /unknown option --concurency \(did you mean --concurrency\?\)$/],
  ])('%j', (args, message) => {
    const r = run(...args);
    expect(r.code).toBe(2);
    const line = r.err.replace(/\n$/, '');
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(message);
    // Never Node's own parser messages.
    expect(r.err).not.toMatch(/ERR_PARSE_ARGS|To specify an option argument|ambiguous/);
    expect(r.out).toBe('');
  });
});

describe('--fail-on', () => {
  const warn = f('reportlab-tshirt-M-unembedded-font.pdf');
  it('check: warn exits 0 by default and 1 with --fail-on warning; an error fails either way', () => {
    expect(run('check', warn, '--sku', 'T-SHIRT-M', '--no-raster').code).toBe(0);
    expect(run('check', warn, '--sku', 'T-SHIRT-M', '--no-raster', '--fail-on', 'warning').code).toBe(1);
    expect(run('check', warn, '--sku', 'T-SHIRT-M', '--no-raster', '--fail-on', 'error').code).toBe(0);
    expect(run('check', f('reportlab-curtains-swapped.pdf'), '--sku', 'CURTAINS-140X260', '--no-raster').code).toBe(1);
  });

  it('batch: the files that fail are listed at the end, and warnings fail the run with --fail-on warning', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'in', 'T-SHIRT-M'), { recursive: true });
    copyFileSync(warn, join(dir, 'in', 'T-SHIRT-M', 'font.pdf'));
    copyFileSync(f('reportlab-tshirt-M-exact.pdf'), join(dir, 'in', 'T-SHIRT-M', 'exact.pdf'));
    copyFileSync(f('reportlab-tshirt-M-three-pages.pdf'), join(dir, 'in', 'T-SHIRT-M', 'three.pdf'));
    const plain = run('batch', join(dir, 'in'), '--out', join(dir, 'out'), '--no-raster', '--no-html');
    expect(plain.code).toBe(1);
    expect(plain.out).toMatch(/Failed \(1\):\n {2}FAIL T-SHIRT-M\/three\.pdf: page-count-mismatch/);
    expect(plain.out).not.toContain('font.pdf');
    expect(plain.err).toContain(`into ${join(dir, 'out')}/reports/`);
    const strict = run('batch', join(dir, 'in'), '--out', join(dir, 'out2'), '--no-raster', '--no-html', '--fail-on', 'warning');
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/Failed or warned \(2\):\n {2}FAIL T-SHIRT-M\/three\.pdf[^\n]*\n {2}WARN T-SHIRT-M\/font\.pdf: font-not-embedded/);
  });
});

describe('output', () => {
  it('a reader that closes at once (| head) ends quietly, with the command’s own exit status', async () => {
    for (const [file, sku, expected] of [
      [f('reportlab-curtains-swapped.pdf'), 'CURTAINS-140X260', 1],
      [f('reportlab-tshirt-M-exact.pdf'), 'T-SHIRT-M', 0],
    ] as const) {
      const child = spawn(process.execPath, [bin, 'check', file, '--sku', sku, '--no-raster', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader is gone before anything is written: every write gets EPIPE
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const code = await new Promise<number | null>((r) => child.on('close', r));
      expect(err).toBe('');
      expect(code).toBe(expected);
    }
  });

  it('| head -3 on a long JSON report: three lines, no stack trace, exit status of the check', () => {
    const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${bin}" check ${f('reportlab-curtains-swapped.pdf')} --sku CURTAINS-140X260 --json --no-raster | head -3`], {
      encoding: 'utf8',
    });
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
  });

  it('piped text is one line per item (no hard wrapping); the same finding on several pages is one entry', () => {
    const r = run('check', f('reportlab-tshirt-M-unembedded-font.pdf'), '--sku', 'T-SHIRT-M', '--no-raster');
    const lines = r.out.split('\n');
    expect(lines.filter((l) => l.includes('font-not-embedded'))).toEqual(['  ⚠ font-not-embedded × 4']);
    expect(lines).toContain(lines.find((l) => l.startsWith('    Pages 1–4: text uses a font that is not embedded: Helvetica')));
    expect(Math.max(...lines.map((l) => l.length))).toBeGreaterThan(100);
    expect(r.out).toMatch(/^ {7}17\.9 kB, 4 pages/m);
  });

  it('a 20,000-page file prints a screen, not 20,000 lines', { timeout: 120_000 }, async () => {
    const dir = tmp();
    execFileSync(process.execPath, ['test/hostile/make-hostile.mjs', dir], { stdio: 'ignore' });
    const r = run('check', join(dir, 'pages-20000.pdf'), '--sku', 'T-SHIRT-M', '--no-raster');
    expect(r.code).toBe(1);
    const lines = r.out.trimEnd().split('\n');
    expect(lines.length).toBeLessThan(40);
    expect(r.out).toContain('Pages 5–20,000: 141.1 × 141.1 mm (no layer), no images');
  });

  it('--html and --previews say where they wrote', () => {
    const dir = tmp();
    const r = run('check', f('reportlab-tshirt-M-exact.pdf'), '--sku', 'T-SHIRT-M', '--html', join(dir, 'r.html'), '--previews', join(dir, 'p'), '--preview-size', '200');
    expect(r.code).toBe(0);
    expect(r.err).toBe(`Wrote ${join(dir, 'r.html')} (the visual report)\nWrote 4 previews into ${join(dir, 'p')}\n`);
    expect(existsSync(join(dir, 'r.html'))).toBe(true);
  });
});

describe('fix writes safely', () => {
  it('never overwrites its input without --force; writes nothing when nothing was fixed, and says so', () => {
    const dir = tmp();
    const input = join(dir, 'in.pdf');
    copyFileSync(f('pikepdf-curtains-rotate90.pdf'), input);
    const before = readFileSync(input);
    const same = run('fix', input, '--sku', 'CURTAINS-140X260', '--out', input);
    expect(same.code).toBe(2);
    expect(same.err).toMatch(/is the input file: write elsewhere, or add --force/);
    expect(readFileSync(input).equals(before)).toBe(true);

    const nothing = run('fix', f('reportlab-tshirt-M-exact.pdf'), '--sku', 'T-SHIRT-M', '--out', join(dir, 'none.pdf'));
    expect(nothing.code).toBe(0);
    expect(nothing.out).toMatch(/^Nothing to fix in .* nothing was written\./);
    expect(existsSync(join(dir, 'none.pdf'))).toBe(false);
    expect(nothing.err).toBe('');

    const forced = run('fix', input, '--sku', 'CURTAINS-140X260', '--out', input, '--force');
    expect(forced.code).toBe(0);
    expect(forced.err).toMatch(new RegExp(`^Wrote ${input} \\(\\d`));
    expect(readFileSync(input).equals(before)).toBe(false);
  });

  it('accepts --severity and --fail-on like check, and the re-check is headed with the output file', () => {
    const dir = tmp();
    const out = join(dir, 'turned.pdf');
    const r = run('fix', f('pikepdf-curtains-rotate90.pdf'), '--sku', 'CURTAINS-140X260', '--out', out, '--severity', 'page-boxes-differ=off', '--fail-on', 'warning');
    expect(r.err).toMatch(new RegExp(`^Wrote ${out} \\(\\d+(\\.\\d)? (kB|MB)\\)\\n$`));
    expect(r.out).toMatch(new RegExp(` (PASS|WARN) {2}${out} — curtains 140x260`));
    expect(r.code).toBe(r.out.includes(' WARN ') ? 1 : 0);
    expect(statSync(out).size).toBeGreaterThan(0);
  });

  it('fix --reorder on a t-shirt in the order sleeve, sleeve, front, back (qpdf) → the output passes', () => {
    const dir = tmp();
    const shuffled = join(dir, 'shuffled.pdf');
    execFileSync('qpdf', [f('reportlab-tshirt-M-exact.pdf'), '--pages', '.', '3,4,1,2', '--', shuffled]);
    const check = run('check', shuffled, '--sku', 'T-SHIRT-M', '--no-raster');
    expect(check.code).toBe(1);
    expect(check.out).toContain('page-order-mismatch');
    expect(check.out).not.toContain('page-size-mismatch');
    const r = run('fix', shuffled, '--sku', 'T-SHIRT-M', '--out', join(dir, 'fixed.pdf'), '--reorder');
    expect(r.code).toBe(0);
    expect(r.out).toContain('put the pages in the order 3, 4, 1, 2');
    expect(r.out).toMatch(/ PASS .*fixed\.pdf/);
  });
});

describe('order', () => {
  it('friendly field messages instead of raw schema messages', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'draft.json'), JSON.stringify({ rows: [{ quantity: '2' }] }));
    const r = run('order', join(dir, 'draft.json'));
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(/expected \w+, received/);
    expect(r.out).toMatch(/purchased_at: is required/);
    expect(r.out).toMatch(/rows\[0\]\.quantity: must be a (whole )?number, not the string "2"/);
  });
});

describe('an 80-column terminal (tmux)', () => {
  const hasTmux = spawnSync('tmux', ['-V']).status === 0;
  /** Runs a shell command in a fresh 80 × 50 tmux session and returns the screen, wrapped lines joined. */
  function inTmux(command: string): string {
    expect(hasTmux, 'tmux is needed for this test (Debian package tmux)').toBe(true);
    const socket = `pp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const done = join(tmp(), 'done');
    try {
      execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-x', '80', '-y', '50', '-s', 'main', `cd ${process.cwd()} && ${command}; touch ${done}; sleep 60`], {
        env: { ...process.env, TERM: 'xterm-256color', NO_COLOR: '1' },
      });
      const until = Date.now() + 90_000;
      while (!existsSync(done) && Date.now() < until) spawnSync('sleep', ['0.2']);
      expect(existsSync(done)).toBe(true);
      return execFileSync('tmux', ['-L', socket, 'capture-pane', '-p', '-J', '-t', 'main'], { encoding: 'utf8' });
    } finally {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
    }
  }

  it('check wraps to the width; nothing runs past column 80', { timeout: 120_000 }, () => {
    const screen = inTmux(`node ${bin} check ${f('img2pdf-duvet-half-scale.pdf')} --product duvet-cover --variant 200x200 --no-raster`);
    const lines = screen.split('\n');
    expect(screen).toContain('image-low-resolution');
    expect(screen).toContain('prints at 2040 × 2040 mm: 5 ppi');
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80);
    expect(lines.filter((l) => /^ {4}\S/.test(l)).length).toBeGreaterThan(4);
  });

  it('the batch bar fits, clears its line, and the run ends with the failed files', { timeout: 120_000 }, () => {
    const dir = tmp();
    mkdirSync(join(dir, 'in', 'T-SHIRT-M'), { recursive: true });
    for (let i = 0; i < 6; i++) copyFileSync(f('reportlab-tshirt-M-exact.pdf'), join(dir, 'in', 'T-SHIRT-M', `order-with-a-rather-long-file-name-that-would-overflow-${i}.pdf`));
    copyFileSync(f('reportlab-tshirt-M-three-pages.pdf'), join(dir, 'in', 'T-SHIRT-M', 'three.pdf'));
    const screen = inTmux(`node ${bin} batch ${join(dir, 'in')} --out ${join(dir, 'out')} --no-raster --no-html --workers 1`);
    expect(screen).not.toMatch(/[█░]/);
    for (const l of screen.split('\n')) expect([...l].length, l).toBeLessThanOrEqual(80);
    expect(screen).toMatch(/7 files: 6 pass, 0 warn, 1 fail, 0 error/);
    expect(screen).toMatch(/Failed \(1\):\n {2}FAIL T-SHIRT-M\/three\.pdf/);
  });
});
