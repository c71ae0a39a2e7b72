import { readFile, writeFile } from 'node:fs/promises';
import { buildOrderPayload, validateDraft, OrderPayloadError } from '../flow/order.js';
import { UsageError, type CliIO } from './args.js';
import { safeForTerminal } from '../report/terminal.js';
import { say } from './output.js';
import { parseFlags } from './args.js';

export const ORDER_HELP = `Usage: print-preflight order <draft.json> [--out payload.json] [--strict] [--allow-host HOST] [--profiles DIR]

Builds the order creation body from a draft: checks every field against the service's rules, then
downloads every source URL the way the service will and preflights it for its row's product.
Prints the payload (or writes it to --out) only when every field and every source passes.

Options:
  --out FILE          write the payload to FILE instead of stdout
  --strict            accept only sources that pass (default: pass and warn)
  --allow-host HOST   allow a host that resolves to a private or loopback address (repeatable)
  --profiles DIR      product profiles folder
  --json              on failure, print the issues as JSON

What was written, and every source accepted with warnings, is said on stderr.
Exit status: 0 payload written, 1 a field or source fails (every one is listed), 2 misuse.`;

export async function orderCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    out: { type: 'string' },
    strict: { type: 'boolean' },
    'allow-host': { type: 'string', multiple: true },
    profiles: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${ORDER_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('order needs one draft JSON file');
  let draft: unknown;
  try {
    draft = JSON.parse(await readFile(positionals[0]!, 'utf8'));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new UsageError(e.code ? `cannot read ${positionals[0]} (${e.code})` : `${positionals[0]} is not valid JSON (${e.message})`);
  }
  try {
    const { payload, reports } = await buildOrderPayload(validateDraft(draft), {
      strict: values.strict ?? false,
      network: { allowHosts: values['allow-host'] ?? [] },
      preflight: { profiles: values.profiles },
    });
    const text = `${JSON.stringify(payload, null, 2)}\n`;
    for (const r of reports.filter((x) => x.verdict === 'warn')) {
      const codes = Object.keys(r.rules).filter((c) => r.findings.some((f) => f.code === c && f.severity === 'warning'));
      say(io, `Accepted with warnings: ${r.source?.url ?? r.file.path ?? 'a source'} (${r.product} ${r.variant}: ${codes.join(', ')}); --strict refuses it`);
    }
    const sources = payload.rows.reduce((n, row) => n + (row.sources?.length ?? 0), 0);
    const what = `the order body: ${payload.rows.length} row${payload.rows.length === 1 ? '' : 's'}, ${sources} source${sources === 1 ? '' : 's'} preflighted (${reports.filter((x) => x.verdict === 'pass').length} pass, ${reports.filter((x) => x.verdict === 'warn').length} warn)`;
    if (values.out) {
      try {
        await writeFile(values.out, text);
      } catch (error) {
        throw new UsageError(`cannot write ${values.out} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
      say(io, `Wrote ${values.out}: ${what}`);
    } else {
      io.stdout(text);
      say(io, `Printed ${what}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof OrderPayloadError) {
      if (values.json) io.stdout(`${JSON.stringify({ issues: error.issues.map(({ path, message }) => ({ path, message })) }, null, 2)}\n`);
      else io.stdout(`${safeForTerminal(error.message)}\n`);
      return 1;
    }
    throw error;
  }
}
