import { jsonSchemas } from '../json-schemas.js';
import { UsageError, type CliIO } from './args.js';
import { parseFlags } from './args.js';

export const SCHEMA_HELP = `Usage: print-preflight schema <profile|report|fixed-report|batch-summary|batch-error|order>

Prints the JSON Schema of a product profile, a report, a fixed file's report (batch --fix), a
batch summary (summary.json), a batch record of a file that could not be judged, or the order
creation body.`;

export async function schemaCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, { help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    io.stdout(`${SCHEMA_HELP}\n`);
    return 0;
  }
  const which = positionals[0];
  const schemas = jsonSchemas();
  const schema = schemas[`${which}.schema.json`];
  if (!schema || positionals.length !== 1) throw new UsageError('schema takes one argument: profile, report, fixed-report, batch-summary, batch-error or order');
  io.stdout(`${JSON.stringify(schema, null, 2)}\n`);
  return 0;
}
