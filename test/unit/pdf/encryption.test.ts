import { describe, expect, it } from 'vitest';
import { rc4 } from '../../../src/pdf/encryption.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ascii = (s: string) => new TextEncoder().encode(s);

describe('RC4 (test vectors from the original publication)', () => {
  it.each([
    ['Key', 'Plaintext', 'bbf316e8d940af0ad3'],
    ['Wiki', 'pedia', '1021bf0420'],
    ['Secret', 'Attack at dawn', '45a01f645fc35b383552544b9bf5'],
  ])('%s / %s', (key, text, expected) => {
    expect(hex(rc4(ascii(key), ascii(text)))).toBe(expected);
    expect(rc4(ascii(key), rc4(ascii(key), ascii(text)))).toEqual(ascii(text));
  });
});
