import { ArithmeticError } from '../../errors.js';

/**
 * A safe arithmetic evaluator: a small recursive-descent parser over numbers, `+ - * / % ^`, parentheses
 * and a few functions. It never reaches `eval` or `Function`, so a model cannot smuggle code through it.
 *
 * Grammar:
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*
 *   unary   := ('+' | '-') unary | power          so -2^2 is -(2^2), as in mathematics
 *   power   := primary (('^' | '**') unary)?      right-associative
 *   primary := number | constant | name '(' expr (',' expr)* ')' | '(' expr ')'
 */

const MAX_LENGTH = 500;
const MAX_DEPTH = 64;

const constants: Record<string, number> = { pi: Math.PI, e: Math.E };

const functions: Record<string, { arity: [number, number]; fn: (...args: number[]) => number }> = {
  sqrt: { arity: [1, 1], fn: Math.sqrt },
  abs: { arity: [1, 1], fn: Math.abs },
  round: { arity: [1, 1], fn: Math.round },
  floor: { arity: [1, 1], fn: Math.floor },
  ceil: { arity: [1, 1], fn: Math.ceil },
  min: { arity: [1, 16], fn: Math.min },
  max: { arity: [1, 16], fn: Math.max },
};

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: string; at: number }
  | { kind: 'end'; at: number };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const number = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(source.slice(i));
    if (number) {
      tokens.push({ kind: 'number', value: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    const name = /^[a-zA-Z]+/.exec(source.slice(i));
    if (name) {
      tokens.push({ kind: 'name', value: name[0].toLowerCase(), at: i });
      i += name[0].length;
      continue;
    }
    if (source.startsWith('**', i)) {
      tokens.push({ kind: 'op', value: '^', at: i });
      i += 2;
      continue;
    }
    // Models and people write × and ÷ too.
    const op = ch === '×' ? '*' : ch === '÷' ? '/' : ch;
    if ('+-*/%^(),'.includes(op)) {
      tokens.push({ kind: 'op', value: op, at: i });
      i++;
      continue;
    }
    throw new ArithmeticError(`unexpected character "${ch}" at position ${i}`, i);
  }
  tokens.push({ kind: 'end', at: source.length });
  return tokens;
}

/** Evaluates an arithmetic expression such as `17*23` or `(2 + 3) ^ 2 / sqrt(16)`; throws `ArithmeticError`. */
export function evaluateArithmetic(expression: string): number {
  if (expression.length > MAX_LENGTH) {
    throw new ArithmeticError(`expression longer than ${MAX_LENGTH} characters`, MAX_LENGTH);
  }
  const tokens = tokenize(expression);
  let pos = 0;
  let depth = 0;

  const peek = (): Token => tokens[pos] as Token;
  const isOp = (value: string): boolean => {
    const t = peek();
    return t.kind === 'op' && t.value === value;
  };
  const expect = (value: string): void => {
    if (!isOp(value)) throw new ArithmeticError(`expected "${value}" at position ${peek().at}`, peek().at);
    pos++;
  };
  const nested = <T>(fn: () => T): T => {
    if (++depth > MAX_DEPTH) throw new ArithmeticError('expression nested too deeply', peek().at);
    try {
      return fn();
    } finally {
      depth--;
    }
  };

  const expr = (): number =>
    nested(() => {
      let value = term();
      while (isOp('+') || isOp('-')) {
        const op = (tokens[pos++] as { value: string }).value;
        const right = term();
        value = op === '+' ? value + right : value - right;
      }
      return value;
    });

  const term = (): number => {
    let value = unary();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const token = tokens[pos++] as { value: string; at: number };
      const right = unary();
      if ((token.value === '/' || token.value === '%') && right === 0) {
        throw new ArithmeticError(`division by zero at position ${token.at}`, token.at);
      }
      value = token.value === '*' ? value * right : token.value === '/' ? value / right : value % right;
    }
    return value;
  };

  const power = (): number =>
    nested(() => {
      const base = primary();
      if (!isOp('^')) return base;
      pos++;
      return base ** unary();
    });

  const unary = (): number =>
    nested(() => {
      if (isOp('-')) {
        pos++;
        return -unary();
      }
      if (isOp('+')) {
        pos++;
        return unary();
      }
      return power();
    });

  const primary = (): number => {
    const token = peek();
    if (token.kind === 'number') {
      pos++;
      return token.value;
    }
    if (token.kind === 'op' && token.value === '(') {
      pos++;
      const value = expr();
      expect(')');
      return value;
    }
    if (token.kind === 'name') {
      pos++;
      // Own properties only: `constructor` or `toString` must not reach Object.prototype.
      const constant = Object.hasOwn(constants, token.value) ? constants[token.value] : undefined;
      if (constant !== undefined) return constant;
      const fn = Object.hasOwn(functions, token.value) ? functions[token.value] : undefined;
      if (!fn) throw new ArithmeticError(`unknown name "${token.value}" at position ${token.at}`, token.at);
      expect('(');
      const args = [expr()];
      while (isOp(',')) {
        pos++;
        args.push(expr());
      }
      expect(')');
      if (args.length < fn.arity[0] || args.length > fn.arity[1]) {
        throw new ArithmeticError(`wrong number of arguments for ${token.value}()`, token.at);
      }
      return fn.fn(...args);
    }
    if (token.kind === 'end') throw new ArithmeticError('unexpected end of expression', token.at);
    throw new ArithmeticError(`unexpected "${token.value}" at position ${token.at}`, token.at);
  };

  const value = expr();
  const rest = peek();
  if (rest.kind !== 'end') {
    throw new ArithmeticError(`unexpected "${String(rest.value)}" at position ${rest.at}`, rest.at);
  }
  if (!Number.isFinite(value)) throw new ArithmeticError('the result is not a finite number', 0);
  return value;
}
