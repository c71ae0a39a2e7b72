import { z } from 'zod';
import { ProfileSchema } from './profile/schema.js';
import { ReportSchema } from './report/schema.js';
import { OrderSchema } from './order/schema.js';

/** The JSON Schemas published in the package's schemas/ folder, generated from the zod schemas. */
export function jsonSchemas(): Record<string, unknown> {
  return {
    'profile.schema.json': {
      ...z.toJSONSchema(ProfileSchema, { io: 'input', unrepresentable: 'any' }),
      title: 'print-preflight product profile',
    },
    'order.schema.json': {
      ...z.toJSONSchema(OrderSchema, { io: 'output', unrepresentable: 'any' }),
      title: 'order creation request body',
    },
    'report.schema.json': {
      ...z.toJSONSchema(ReportSchema, { io: 'output', unrepresentable: 'any' }),
      title: 'print-preflight report',
    },
  };
}
