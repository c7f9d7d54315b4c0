/**
 * Finds the arithmetic a message asks for and writes it as an expression: "17% of 250" -> `17/100*250`,
 * "12 times 7" -> `12*7`, "square root of 16" -> `sqrt(16)`, "(2+3)^2/4" as is. Dates, times and lone
 * numbers are not arithmetic. Every separate expression of a message ("what is 2+2 and 3*5" -> `2+2`,
 * `3*5`), in order.
 */
export function extractArithmetics(text: string): string[] {
  let s = ` ${text} `
    // Dates and clock times are not sums.
    .replace(/\b\d{4}-\d{1,2}-\d{1,2}\b/g, ' ')
    .replace(/\b\d{1,2}:\d{2}\b/g, ' ')
    .replace(/(\d),(\d{3})\b/g, '$1$2');
  const words: Array<[RegExp, string]> = [
    [/\bsquare\s+root\s+of\s+(\d+(?:\.\d+)?)/gi, ' sqrt($1) '],
    [/\bsqrt\s+of\s+(\d+(?:\.\d+)?)/gi, ' sqrt($1) '],
    [
      /(?<![\d.])(\d+(?:\.\d+)?)\s*(?:%|percent|per\s+cent)\s+(?:[a-z]+\s+){0,2}?(?:of|on)\s+(?:\$|€|£)?(?=\d)/gi,
      ' $1/100*',
    ],
    [/(?<![\d.])(\d+(?:\.\d+)?)\s+squared\b/gi, ' $1^2 '],
    [/(?<![\d.])(\d+(?:\.\d+)?)\s+cubed\b/gi, ' $1^3 '],
    [/\bto\s+the\s+power\s+of\b/gi, ' ^ '],
    [/\bmultiplied\s+by\b/gi, ' * '],
    [/\bdivided\s+by\b/gi, ' / '],
    [/(\d)\s*(?:times|x|×)\s*(?=[\d(])/gi, '$1 * '],
    [/(\d)\s+over\s+(?=[\d(])/gi, '$1 / '],
    [/\bplus\b/gi, ' + '],
    [/(\d)\s+minus\s+/gi, '$1 - '],
    [/\bmodulo\b|\bmod\b/gi, ' % '],
    [/÷/g, '/'],
    [/\*\*/g, '^'],
  ];
  for (const [pattern, replacement] of words) s = s.replace(pattern, replacement);
  const runs = s.match(/(?:sqrt\(|(?<![\w)])-(?=\s*\d)|[\d.(])[\d\s.+\-*/%^()sqrt]*[\d)]/g) ?? [];
  const out: string[] = [];
  for (const raw of runs) {
    const run = balance(raw.replace(/\s+/g, ''));
    // One number is not a sum; a phone number or a range like 9-5 in words is rare enough to accept.
    if (!/[-+*/%^]|sqrt/.test(run.replace(/^-/, ''))) continue;
    if (!/\d/.test(run)) continue;
    out.push(run);
  }
  return out;
}

function balance(run: string): string {
  let text = run;
  while (text.startsWith('(') && depth(text) > 0) text = text.slice(1);
  while (text.endsWith(')') && depth(text) < 0) text = text.slice(0, -1);
  const open = depth(text);
  return open > 0 ? text + ')'.repeat(open) : text;
}

function depth(text: string): number {
  let d = 0;
  for (const ch of text) d += ch === '(' ? 1 : ch === ')' ? -1 : 0;
  return d;
}
