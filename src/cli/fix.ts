import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { fix } from '../convert/fix.js';
import { renderText } from '../report/text.js';
import { numberFlag, targetFrom, usage, UsageError, type CliIO } from './args.js';
import { safeForTerminal } from '../report/terminal.js';

export const FIX_HELP = `Usage: print-preflight fix <in.pdf> (--product ID --variant ID | --sku SKU) --out out.pdf [options]

Fixes what can be fixed, each fix a separate step, then checks the output again:
  page-rotate-set            bakes /Rotate into the content (/Rotate 0)
  page-orientation-mismatch  turns the content 90° (needs --rotate: the direction is never guessed)
  page-scale-mismatch        scales the page uniformly to the layer size
  page-size-mismatch         fits the page to the layer (needs --fit)
  colour-space-not-rgb       images and vector colours to sRGB through lcms (ICC profiles honoured)
  image-too-large            downsamples images to at most 15,000 px per side
  file-too-large             recompresses JPEG images until under 50 MB

Options:
  --out FILE          where to write the fixed PDF (required)
  --rotate cw|ccw     direction to turn sideways pages
  --fit contain|cover|stretch
                      how to fit pages of other proportions than their layer
  --jpeg-quality Q    quality of re-encoded JPEG images (default 92)
  --profiles DIR      product profiles folder
  --json              print the changes, refusals and the new report as JSON

Exit status: 0 written and the output does not fail, 1 it still fails or nothing could be written, 2 misuse.`;

export async function fixCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        product: { type: 'string' },
        variant: { type: 'string' },
        sku: { type: 'string' },
        out: { type: 'string' },
        rotate: { type: 'string' },
        fit: { type: 'string' },
        'jpeg-quality': { type: 'string' },
        profiles: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    io.stdout(`${FIX_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('fix needs one PDF');
  if (!values.out) throw new UsageError('fix needs --out FILE');
  if (values.rotate !== undefined && values.rotate !== 'cw' && values.rotate !== 'ccw') throw new UsageError(`--rotate must be cw or ccw, got "${values.rotate}"`);
  if (values.fit !== undefined && !['contain', 'cover', 'stretch'].includes(values.fit)) throw new UsageError(`--fit must be contain, cover or stretch, got "${values.fit}"`);
  const quality = numberFlag(values['jpeg-quality'], 'jpeg-quality', { min: 30, max: 100 });
  const target = targetFrom(values);
  const result = await fix(
    positionals[0]!,
    target,
    { rotate: values.rotate as 'cw' | 'ccw' | undefined, fit: values.fit as 'contain' | undefined, ...(quality ? { jpegQuality: quality } : {}) },
    { profiles: values.profiles },
  );
  if (result.bytes) await writeFile(values.out, result.bytes);
  if (values.json) {
    io.stdout(`${JSON.stringify({ written: result.bytes !== null, changes: result.changes, refused: result.refused, report: result.after }, null, 2)}\n`);
  } else {
    const lines = [
      result.bytes ? `Wrote ${values.out} (${(result.bytes.length / 1e6).toFixed(2)} MB).` : 'Nothing was written.',
      ...(result.changes.length ? ['', 'Changes:', ...result.changes.map((c) => `  ✓ ${c.page ? `page ${c.page}: ` : ''}${c.action} [${c.code}]`)] : []),
      ...(result.refused.length ? ['', 'Not fixed:', ...result.refused.map((r) => `  ✗ ${r.page ? `page ${r.page}: ` : ''}${r.reason} [${r.code}]`)] : []),
      '',
    ];
    io.stdout(lines.map(safeForTerminal).join('\n'));
    if (result.after) io.stdout(renderText(result.after, { colour: io.isTTY && !process.env.NO_COLOR }));
  }
  return result.bytes && result.after && result.after.verdict !== 'fail' ? 0 : 1;
}
