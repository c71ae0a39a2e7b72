import { writeFile } from 'node:fs/promises';
import { assemble, type LayerInput } from '../flow/assemble.js';
import { renderText } from '../report/text.js';
import { choiceFlag, FAIL_ON_HELP, failOnFlag, fails, numberFlag, parseFlags, resolveTarget, UsageError, type CliIO } from './args.js';
import { say } from './output.js';
import { formatBytes } from '../pdf/units.js';
import { AssemblyFillSchema, type AssemblyFill } from '../model/assembly.js';

export const ASSEMBLE_HELP = `Usage: print-preflight assemble (--product ID --variant ID | --sku SKU) --out out.pdf <file per layer…>
       print-preflight assemble --sku T-SHIRT-M --out out.pdf --layer front=a.png --layer back=b.jpg …

Builds the print file from one image (PNG, JPEG, TIFF, WebP) or one-page PDF per layer, in the
product's layer order: each page exactly the layer's size, colour-managed to sRGB, at the production
resolution (150 ppi, at most 15,000 px per side), under 50 MB. The output is checked. An image
over the product's pixel limit (15,000 px on a side) is refused, not scaled down, and so is one
that cannot be decoded: the message names the layer, its size and the limit (exit 2).

Options:
  --out FILE          the PDF to write (required)
  --layer ID=FILE     a file for a named layer (repeatable); other files fill the remaining layers in order
  --fit cover|contain|stretch|tile|mirror|bleed   how an image fills its page; tile
                      repeats it at its stated resolution (PNG pHYs, JPEG density, TIFF resolution;
                      else the production resolution); mirror places it as contain and fills the
                      rest by mirroring its edges; bleed takes the image as the trim (the layer
                      less its bleed): placed at its own size, the bleed mirrored from its edges.
                      Without --fit an image made at the trim size (by the size its resolution
                      states, or its proportions within 1 mm) gets bleed, any other cover
  --layer-fit ID=FILL the fill of one layer (repeatable), over --fit
  --background COLOUR background for contain and for transparency (default #ffffff); without it a
                      transparent area inside the trim is said (image-transparent-area: it prints
                      as the fabric colour); with it the area is filled with that colour
  --jpeg-quality Q    JPEG quality (default 90)
  --lossless          store images losslessly instead of as JPEG
  --upsample          resample small images up to the production resolution
  --profiles DIR      product profiles folder
  --json              print the changes and the report as JSON
${FAIL_ON_HELP}

The file written is named on stderr.
Exit status: 0 written and it does not fail, 1 it fails (or warns, with --fail-on warning), 2 misuse
or a layer image refused (too large, or cannot be decoded).`;

export async function assembleCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    product: { type: 'string' },
    variant: { type: 'string' },
    sku: { type: 'string' },
    out: { type: 'string' },
    layer: { type: 'string', multiple: true },
    fit: { type: 'string' },
    'layer-fit': { type: 'string', multiple: true },
    background: { type: 'string' },
    'jpeg-quality': { type: 'string' },
    lossless: { type: 'boolean' },
    upsample: { type: 'boolean' },
    profiles: { type: 'string' },
    json: { type: 'boolean' },
    'fail-on': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${ASSEMBLE_HELP}\n`);
    return 0;
  }
  if (!values.out) throw new UsageError('assemble needs --out FILE');
  const target = await resolveTarget(values);
  const inputs: LayerInput[] = [...positionals];
  for (const l of values.layer ?? []) {
    const at = l.indexOf('=');
    if (at <= 0) throw new UsageError(`--layer needs ID=FILE, got "${l}"`);
    inputs.push({ layer: l.slice(0, at), input: l.slice(at + 1) });
  }
  const fills = AssemblyFillSchema.options;
  const fit = choiceFlag(values.fit, 'fit', fills);
  const layerFit: Record<string, AssemblyFill> = {};
  for (const l of values['layer-fit'] ?? []) {
    const at = l.indexOf('=');
    const fill = fills.find((f) => f === l.slice(at + 1));
    if (at <= 0 || fill === undefined) throw new UsageError(`--layer-fit needs ID=FILL (FILL: ${fills.slice(0, -1).join(', ')} or ${fills.at(-1)}), got "${l}"`);
    layerFit[l.slice(0, at)] = fill;
  }
  const failOn = failOnFlag(values['fail-on']);
  const quality = numberFlag(values['jpeg-quality'], 'jpeg-quality', { min: 30, max: 100 });
  const result = await assemble(
    target,
    inputs,
    {
      ...(fit ? { fit } : {}),
      layerFit,
      ...(values.background ? { background: values.background } : {}),
      ...(quality !== undefined ? { jpegQuality: quality } : {}),
      lossless: values.lossless ?? false,
      upsample: values.upsample ?? false,
    },
    { profiles: values.profiles, path: values.out },
  );
  try {
    await writeFile(values.out, result.bytes);
  } catch (error) {
    throw new UsageError(`cannot write ${values.out} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  say(io, `Wrote ${values.out} (${formatBytes(result.bytes.length)})`);
  if (values.json) io.stdout(`${JSON.stringify({ written: values.out, changes: result.changes, report: result.report }, null, 2)}\n`);
  else {
    io.stdout(`Assembled ${values.out}:\n${result.changes.map((c) => `  ✓ ${c}`).join('\n')}\n\n`);
    io.stdout(renderText(result.report, { colour: io.isTTY && !process.env.NO_COLOR, ...(io.columns ? { width: io.columns } : {}) }));
  }
  return fails(result.report.verdict, failOn) ? 1 : 0;
}
