import { formatMm } from '../pdf/units.js';
import { loadProfiles } from '../profile/load.js';
import { profileListing } from '../profile/listing.js';
import { parseArgs } from 'node:util';
import { usage, UsageError, type CliIO } from './args.js';

export const PROFILES_HELP = `Usage: print-preflight profiles [--json] [--profiles DIR]

Lists products, variants, SKUs, layers (in page order) and page sizes (trim + 2 × bleed).`;

export async function profilesCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = usage(() => parseArgs({ args, allowPositionals: true, strict: true, options: { json: { type: 'boolean' }, profiles: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  if (values.help) {
    io.stdout(`${PROFILES_HELP}\n`);
    return 0;
  }
  if (positionals.length) throw new UsageError(`profiles takes no arguments, got "${positionals[0]}"`);
  const registry = await loadProfiles(values.profiles);
  const listing = profileListing(registry);
  if (values.json) {
    io.stdout(`${JSON.stringify(listing, null, 2)}\n`);
    return 0;
  }
  const out: string[] = [];
  for (const p of listing) {
    out.push(`${p.id} — ${p.name} (profile ${p.version}; bleed ${p.bleedMm} mm, tolerance ±${p.toleranceMm} mm)`);
    out.push(`  layers, in page order: ${p.layers.join(', ')}`);
    for (const v of p.variants) {
      // Group layers of equal size: "front, back 560 × 750 mm; left-sleeve, right-sleeve 460 × 260 mm".
      const groups = new Map<string, string[]>();
      for (const pg of v.pages) {
        const key = formatMm(pg.pageWidthMm, pg.pageHeightMm);
        groups.set(key, [...(groups.get(key) ?? []), pg.layer]);
      }
      const sizes = [...groups].map(([size, layers]) => (groups.size === 1 ? size : `${layers.join(', ')} ${size}`)).join('; ');
      out.push(`  ${v.id.padEnd(8)} ${v.skus.join(', ').padEnd(24)} ${sizes}`);
    }
    out.push('');
  }
  io.stdout(out.join('\n'));
  return 0;
}
