#!/usr/bin/env node
/**
 * Reviews regenerated corpus expected reports after a change of the shipped profiles' `policy`:
 * every report must equal the one at REF (default HEAD) apart from `profileDigest` and the
 * `action: "fix"` members the policy adds to findings of codes it fixes. Anything else (a verdict,
 * a severity, a finding, a count) is printed and the exit status is 1.
 *
 *   npm run corpus:expect && node test/corpus/check-policy-diff.mjs [REF]
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ref = process.argv[2] ?? 'HEAD';
const dir = 'test/corpus/expected';
const cases = JSON.parse(readFileSync('test/corpus/cases.json', 'utf8'));
const profiles = new Map(
  readdirSync('profiles')
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const p = JSON.parse(readFileSync(join('profiles', f), 'utf8'));
      return [p.id, p];
    }),
);
let problems = 0;
let actions = 0;
let digests = 0;
const complain = (file, what) => {
  problems++;
  console.log(`${file}: ${what}`);
};
for (const c of cases) {
  const name = c.file.replace(/\.pdf$/, '.json');
  const now = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  let before;
  try {
    before = JSON.parse(execFileSync('git', ['show', `${ref}:${dir}/${name}`], { encoding: 'utf8' }));
  } catch {
    complain(name, `not in ${ref}`);
    continue;
  }
  if (now.profileDigest !== before.profileDigest) digests++;
  const policy = profiles.get(now.product)?.policy ?? {};
  for (const f of now.findings ?? []) {
    if (!('action' in f)) continue;
    if (f.action !== 'fix' || policy[f.code] !== 'fix') complain(name, `finding ${f.code} has action ${f.action}, the profile's policy says ${policy[f.code]}`);
    actions++;
  }
  const strip = (r, dropActions) => ({
    ...r,
    profileDigest: undefined,
    findings: (r.findings ?? []).map((f) => {
      if (!dropActions) return f;
      const { action: _a, ...rest } = f;
      return rest;
    }),
  });
  const a = JSON.stringify(strip(before, false));
  const b = JSON.stringify(strip(now, true));
  if (a !== b) complain(name, `differs beyond profileDigest and action (verdict ${before.verdict} → ${now.verdict})`);
}
console.log(`${cases.length} expected reports: ${digests} new digests, ${actions} findings with action "fix" added, ${problems} other differences`);
process.exit(problems ? 1 : 0);
