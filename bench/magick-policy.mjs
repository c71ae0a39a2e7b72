/**
 * Debian's ImageMagick policy caps memory and image size far below print sizes: the bench's
 * ImageMagick runs get a policy of their own, written once into `out/magick` (MAGICK_CONFIGURE_PATH).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const POLICY =
  '<policymap><policy domain="resource" name="memory" value="4GiB"/><policy domain="resource" name="map" value="4GiB"/><policy domain="resource" name="area" value="1GP"/><policy domain="resource" name="width" value="64KP"/><policy domain="resource" name="height" value="64KP"/></policymap>';

/** Writes the policy into `out/magick` and answers that folder, for MAGICK_CONFIGURE_PATH. */
export function magickPolicyDir(out) {
  const dir = join(out, 'magick');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'policy.xml'), POLICY);
  return dir;
}
