import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { assemble, type LayerInput } from '../convert/assemble.js';
import { renderText } from '../report/text.js';
import { numberFlag, targetFrom, usage, UsageError, type CliIO } from './args.js';
import { safeForTerminal } from '../report/terminal.js';

export const ASSEMBLE_HELP = `Usage: print-preflight assemble (--product ID --variant ID | --sku SKU) --out out.pdf <file per layer…>
       print-preflight assemble --sku T-SHIRT-M --out out.pdf --layer front=a.png --layer back=b.jpg …

Builds the print file from one image (PNG, JPEG, TIFF, WebP) or one-page PDF per layer, in the
product's layer order: each page exactly the layer's size, colour-managed to sRGB, at the production
resolution (150 ppi, at most 15,000 px per side), under 50 MB. The output is checked.

Options:
  --out FILE          the PDF to write (required)
  --layer ID=FILE     a file for a named layer (repeatable); other files fill the remaining layers in order
  --fit cover|contain|stretch   how an image fills its page (default cover)
  --background COLOUR background for contain and for transparency (default #ffffff)
  --jpeg-quality Q    JPEG quality (default 90)
  --lossless          store images losslessly instead of as JPEG
  --upsample          resample small images up to the production resolution
  --profiles DIR      product profiles folder
  --json              print the changes and the report as JSON

Exit status: 0 written and it does not fail, 1 it fails, 2 misuse.`;

export async function assembleCommand(args: string[], io: CliIO): Promise<number> {
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
        layer: { type: 'string', multiple: true },
        fit: { type: 'string' },
        background: { type: 'string' },
        'jpeg-quality': { type: 'string' },
        lossless: { type: 'boolean' },
        upsample: { type: 'boolean' },
        profiles: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    io.stdout(`${ASSEMBLE_HELP}\n`);
    return 0;
  }
  if (!values.out) throw new UsageError('assemble needs --out FILE');
  const target = targetFrom(values);
  const inputs: LayerInput[] = [...positionals];
  for (const l of values.layer ?? []) {
    const at = l.indexOf('=');
    if (at <= 0) throw new UsageError(`--layer needs ID=FILE, got "${l}"`);
    inputs.push({ layer: l.slice(0, at), input: l.slice(at + 1) });
  }
  if (values.fit !== undefined && !['contain', 'cover', 'stretch'].includes(values.fit)) throw new UsageError(`--fit must be cover, contain or stretch, got "${values.fit}"`);
  const quality = numberFlag(values['jpeg-quality'], 'jpeg-quality', { min: 30, max: 100 });
  const result = await assemble(
    target,
    inputs,
    {
      ...(values.fit ? { fit: values.fit as 'cover' } : {}),
      ...(values.background ? { background: values.background } : {}),
      ...(quality !== undefined ? { jpegQuality: quality } : {}),
      lossless: values.lossless ?? false,
      upsample: values.upsample ?? false,
    },
    { profiles: values.profiles },
  );
  await writeFile(values.out, result.bytes);
  if (values.json) io.stdout(`${JSON.stringify({ changes: result.changes, report: result.report }, null, 2)}\n`);
  else {
    io.stdout(`Wrote ${values.out} (${(result.bytes.length / 1e6).toFixed(2)} MB).\n${result.changes.map((c) => `  ✓ ${safeForTerminal(c)}`).join('\n')}\n\n`);
    io.stdout(renderText(result.report, { colour: io.isTTY && !process.env.NO_COLOR }));
  }
  return result.report.verdict === 'fail' ? 1 : 0;
}
