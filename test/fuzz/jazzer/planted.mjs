/**
 * A bug planted behind a chain of byte comparisons, for the smoke test of the fuzzer itself
 * (jazzer.test.ts): random inputs reach it about once in 2^40; coverage feedback (each comparison
 * passed is a new edge) and libFuzzer's comparison tables, through the addon built here, find it in
 * seconds.
 */
export function fuzz(data) {
  if (data.length >= 5 && data[0] === 0x25) {
    if (data[1] === 0x50) {
      if (data[2] === 0x44) {
        if (data[3] === 0x46) {
          if (data[4] === 0x2d) throw new Error('planted bug reached');
        }
      }
    }
  }
}
