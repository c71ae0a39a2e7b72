import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonSchemas } from '../../src/schemas.js';

describe('published JSON Schemas', () => {
  it('schemas/ holds exactly what the zod schemas generate (run `npm run schemas` after changing them)', () => {
    const generated = jsonSchemas();
    expect(readdirSync('schemas').sort()).toEqual(Object.keys(generated).sort());
    for (const [name, schema] of Object.entries(generated)) {
      expect(JSON.parse(readFileSync(`schemas/${name}`, 'utf8')), name).toEqual(schema);
    }
  });

  it('every profile file names the profile schema', () => {
    for (const f of readdirSync('profiles')) {
      expect(JSON.parse(readFileSync(`profiles/${f}`, 'utf8')).$schema).toBe('../schemas/profile.schema.json');
    }
  });
});
