import { describe, expect, it } from 'vitest';
import { evaluateArithmetic } from '../../../../src/cli/demo/tools/evaluate-arithmetic.js';
import { ArithmeticError } from '../../../../src/cli/errors.js';

describe('evaluateArithmetic', () => {
  describe('when the expression is valid', () => {
    it.each([
      ['17*23', 391],
      ['1 + 2 * 3', 7],
      ['(1 + 2) * 3', 9],
      ['2 ^ 3 ^ 2', 512],
      ['2 ** 10', 1024],
      ['-3 + +5', 2],
      ['--4', 4],
      ['10 / 4', 2.5],
      ['10 % 4', 2],
      ['sqrt(16) + abs(-2)', 6],
      ['max(1, 7, 3) - min(4, 2)', 5],
      ['round(2.5) + floor(1.9) + ceil(1.1)', 6],
      ['2 * pi', 2 * Math.PI],
      ['1.5e3 + .5', 1500.5],
      ['6 × 7 ÷ 2', 21],
      ['-2 ^ 2', -4],
      ['2 ^ -1', 0.5],
    ])('should compute %s = %d', (expression, expected) => {
      expect(evaluateArithmetic(expression)).toBeCloseTo(expected, 10);
    });
  });

  describe('when the expression is invalid', () => {
    it.each([
      ['1 +', /unexpected end/],
      ['(1 + 2', /expected "\)"/],
      ['1 / 0', /division by zero/],
      ['5 % 0', /division by zero/],
      ['2 3', /unexpected "3"/],
      ['process.exit(1)', /unknown name "process"|unexpected character/],
      ['constructor', /unknown name "constructor"/],
      ['tostring(1)', /unknown name "tostring"/],
      ['valueOf(1)', /unknown name "valueof"/],
      ['alert("x")', /unknown name "alert"|unexpected character/],
      ['sqrt(1, 2)', /wrong number of arguments/],
      ['10 ^ 400', /not a finite number/],
      ['1; 2', /unexpected character ";"/],
    ])('should refuse %s', (expression, message) => {
      expect(() => evaluateArithmetic(expression)).toThrow(ArithmeticError);
      expect(() => evaluateArithmetic(expression)).toThrow(message);
    });

    it('should refuse input nested too deeply instead of overflowing the stack', () => {
      expect(() => evaluateArithmetic(`${'('.repeat(200)}1${')'.repeat(200)}`)).toThrow(/nested too deeply/);
    });

    it('should refuse very long input', () => {
      expect(() => evaluateArithmetic('1+'.repeat(300) + '1')).toThrow(/longer than 500/);
    });
  });
});
