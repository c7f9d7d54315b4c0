import { countTokens as countWithLibrary } from 'gpt-tokenizer';
import { describe, expect, it, vi } from 'vitest';

// Records the longest text handed to the tokenizer; refuses (instead of running for minutes) a text so long
// that byte-pair merging it as one piece would be quadratic.
const longest = vi.hoisted(() => ({ value: 0 }));
vi.mock('gpt-tokenizer', async (importOriginal) => {
  const original = await importOriginal<typeof import('gpt-tokenizer')>();
  return {
    ...original,
    countTokens: (text: string) => {
      longest.value = Math.max(longest.value, text.length);
      if (text.length > 100_000) {
        throw new Error(`one run of ${text.length} characters handed to byte-pair merging whole`);
      }
      return original.countTokens(text);
    },
  };
});

const { countTextTokens } = await import('../../src/emulator/tokenize.js');

describe('countTextTokens on long runs of one character', () => {
  it.each([
    ['a letter', 'z'],
    ['a space', ' '],
    ['a symbol', '='],
    ['a CJK character', '世'],
  ])('should count 1 MB of %s in bounded slices', (_name, character) => {
    longest.value = 0;
    const count = countTextTokens(character.repeat(1_000_000));
    expect(count).toBeGreaterThan(0);
    expect(longest.value).toBeLessThanOrEqual(1000);
  });

  it('should stay exact on ordinary text and on short runs', () => {
    const prose = 'The quick brown fox jumps over the lazy dog, twice. '.repeat(500);
    expect(countTextTokens(prose)).toBe(countWithLibrary(prose));
    const json = JSON.stringify(
      Array.from({ length: 300 }, (_, i) => ({ id: `call_${i}`, args: '{"city":"Paris"}' })),
    );
    expect(countTextTokens(json)).toBe(countWithLibrary(json));
    expect(countTextTokens('z'.repeat(5000))).toBe(countWithLibrary('z'.repeat(5000)));
  });
});
