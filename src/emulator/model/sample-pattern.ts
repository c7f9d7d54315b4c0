// A string for a `pattern` when the request holds none that matches: a small regex walker for the
// patterns tool schemas use (anchors, literals, escapes, classes with ranges, groups, alternation and
// quantifiers). Anything beyond that yields undefined, and the caller asks the user instead.

type Node =
  | { kind: 'chars'; options: string[] }
  | { kind: 'group'; alternatives: Node[][] }
  | { kind: 'repeat'; node: Node; min: number; max: number };

const DIGITS = [...'0123456789'];
const WORD = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'];
const ANY = [...'abcxyzABC012'];

/** A string matching `pattern`, varied by `seed`; undefined when the pattern uses syntax it does not read. */
export function samplePattern(pattern: string, seed = 0): string | undefined {
  let tree: Node[][];
  try {
    const parser = new PatternParser(pattern);
    tree = parser.alternation();
    if (!parser.done()) return undefined;
  } catch {
    return undefined;
  }
  const out = emitAlternatives(tree, seed);
  try {
    return new RegExp(pattern, 'u').test(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

function emitAlternatives(alternatives: Node[][], seed: number): string {
  const chosen = alternatives[seed % alternatives.length] ?? [];
  return chosen.map((node, i) => emit(node, seed + i)).join('');
}

function emit(node: Node, seed: number): string {
  switch (node.kind) {
    case 'chars':
      return node.options[seed % node.options.length] ?? '';
    case 'group':
      return emitAlternatives(node.alternatives, seed);
    case 'repeat': {
      const count = node.min > 0 ? node.min : Math.min(node.max, 1);
      let out = '';
      for (let i = 0; i < count; i++) out += emit(node.node, seed + i);
      return out;
    }
  }
}

class PatternParser {
  private at = 0;
  constructor(private readonly source: string) {}

  done(): boolean {
    return this.at >= this.source.length;
  }

  alternation(): Node[][] {
    const alternatives: Node[][] = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      alternatives.push(this.sequence());
    }
    return alternatives;
  }

  private sequence(): Node[] {
    const nodes: Node[] = [];
    while (!this.done() && this.peek() !== '|' && this.peek() !== ')') {
      const char = this.peek();
      if (char === '^' || char === '$') {
        // Anchors only make sense at the ends here; the final RegExp check catches any other use.
        this.at++;
        continue;
      }
      const atom = this.atom();
      nodes.push(this.quantified(atom));
    }
    return nodes;
  }

  private atom(): Node {
    const char = this.source[this.at++]!;
    if (char === '(') {
      if (this.source.startsWith('?:', this.at)) this.at += 2;
      else if (this.peek() === '?') throw new Error('lookaround');
      const alternatives = this.alternation();
      if (this.source[this.at++] !== ')') throw new Error('unclosed group');
      return { kind: 'group', alternatives };
    }
    if (char === '[') return this.charClass();
    if (char === '\\') return { kind: 'chars', options: this.escape() };
    if (char === '.') return { kind: 'chars', options: ANY };
    if ('*+?{'.includes(char)) throw new Error('dangling quantifier');
    return { kind: 'chars', options: [char] };
  }

  private escape(): string[] {
    const char = this.source[this.at++];
    switch (char) {
      case 'd':
        return DIGITS;
      case 'w':
        return WORD;
      case 's':
        return [' '];
      case undefined:
      case 'b':
      case 'B':
      case 'p':
      case 'P':
      case 'u':
      case 'x':
        throw new Error('unsupported escape');
      default:
        if (/[DWS0-9]/.test(char)) throw new Error('unsupported escape');
        return [char];
    }
  }

  private charClass(): Node {
    const negated = this.peek() === '^';
    if (negated) this.at++;
    const members: string[] = [];
    let first = true;
    while (this.peek() !== ']' || first) {
      first = false;
      if (this.done()) throw new Error('unclosed class');
      let char = this.source[this.at++]!;
      let set: string[] | undefined;
      if (char === '\\') {
        set = this.escape();
        if (set.length > 1) {
          members.push(...set);
          continue;
        }
        char = set[0]!;
      }
      if (this.peek() === '-' && this.source[this.at + 1] !== ']' && this.source[this.at + 1] !== undefined) {
        this.at++;
        let end = this.source[this.at++]!;
        if (end === '\\') end = this.escape()[0]!;
        for (let code = char.codePointAt(0)!; code <= end.codePointAt(0)!; code++)
          members.push(String.fromCodePoint(code));
      } else members.push(char);
    }
    this.at++;
    if (!negated) return { kind: 'chars', options: members.length > 0 ? members : ['a'] };
    const allowed = [...WORD, '-', '.'].filter((c) => !members.includes(c));
    if (allowed.length === 0) throw new Error('empty negated class');
    return { kind: 'chars', options: allowed };
  }

  private quantified(node: Node): Node {
    const char = this.peek();
    let min = 1;
    let max = 1;
    if (char === '*') [min, max] = [0, Number.POSITIVE_INFINITY];
    else if (char === '+') [min, max] = [1, Number.POSITIVE_INFINITY];
    else if (char === '?') [min, max] = [0, 1];
    else if (char === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!m) throw new Error('bad quantifier');
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] ? Number(m[3]) : Number.POSITIVE_INFINITY;
      this.at += m[0].length - 1;
    } else return node;
    this.at++;
    // A lazy marker changes nothing for one sample.
    if (this.peek() === '?') this.at++;
    return { kind: 'repeat', node, min, max };
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }
}
