import { escapeHtml } from '../../core/escape-html.js';
import type { EvalResult, VariantResult } from './run-eval.js';

// The HTML report of `svc-agents eval`: one self-contained page (inline SVG and CSS, no script, nothing
// loaded from the network) so it opens offline and can be attached to a CI run.

const COLORS = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2'];

/** The report of several evals as one HTML page. */
export function renderEvalReport(results: readonly EvalResult[]): string {
  const sections = results.map((result) => {
    const scorers = Object.keys(result.variants[0]?.scores ?? {});
    return `<section><h2>${escapeHtml(result.name)} ${result.failures.length === 0 ? '<span class="ok">passed</span>' : '<span class="bad">failed</span>'}</h2>
${table(result.variants, scorers)}
${result.failures.length > 0 ? `<ul class="bad">${result.failures.map((f) => `<li>${escapeHtml(f)}</li>`).join('')}</ul>` : ''}
<div class="charts">
<figure><figcaption>Mean score per variant</figcaption>${bars(result.variants, scorers)}</figure>
<figure><figcaption>Distribution of item scores</figcaption>${histogram(result.variants)}</figure>
<figure><figcaption>Cost (tokens) against score, per item</figcaption>${scatter(result.variants)}</figure>
</div></section>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc-agents evals</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
:root { color-scheme: light dark; --fg: #111827; --bg: #ffffff; --muted: #6b7280; --line: #e5e7eb; }
@media (prefers-color-scheme: dark) { :root { --fg: #e5e7eb; --bg: #111827; --muted: #9ca3af; --line: #374151; } }
body { font: 14px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }
table { border-collapse: collapse; width: 100%; } th, td { padding: .35rem .6rem; border-bottom: 1px solid var(--line); text-align: right; }
th:first-child, td:first-child { text-align: left; } .ok { color: #059669; } .bad { color: #dc2626; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5rem; } figure { margin: 1rem 0; } figcaption { color: var(--muted); }
svg text { fill: var(--fg); font-size: 11px; } .legend span { display: inline-block; width: .8em; height: .8em; margin: 0 .3em 0 1em; }
</style></head><body><h1>svc-agents evals</h1>
<p class="legend">${legend(results[0]?.variants ?? [])}</p>
${sections.join('\n')}</body></html>`;
}

function legend(variants: readonly VariantResult[]): string {
  return variants
    .map((v, i) => `<span style="background:${COLORS[i % COLORS.length]}"></span>${escapeHtml(v.variant)}`)
    .join('');
}

function table(variants: readonly VariantResult[], scorers: string[]): string {
  const head = ['variant', ...scorers, 'pass rate', 'tokens', 'cost', 'p50 ms', 'p95 ms'];
  const rows = variants.map((v) =>
    [
      escapeHtml(v.variant),
      ...scorers.map((s) => (v.scores[s] ?? 0).toFixed(2)),
      `${(v.passRate * 100).toFixed(0)}%`,
      String(v.tokens),
      v.cost.toFixed(4),
      v.latencyP50.toFixed(0),
      v.latencyP95.toFixed(0),
    ]
      .map((cell) => `<td>${cell}</td>`)
      .join(''),
  );
  return `<table><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r}</tr>`).join('')}</table>`;
}

function bars(variants: readonly VariantResult[], scorers: string[]): string {
  const width = 360;
  const group = width / Math.max(1, scorers.length);
  const bar = (group - 16) / Math.max(1, variants.length);
  const rects = scorers.flatMap((scorer, s) =>
    variants.map((v, i) => {
      const h = (v.scores[scorer] ?? 0) * 140;
      return `<rect x="${s * group + 8 + i * bar}" y="${150 - h}" width="${bar - 2}" height="${h}" fill="${COLORS[i % COLORS.length]}"><title>${escapeHtml(v.variant)} ${escapeHtml(scorer)}: ${(v.scores[scorer] ?? 0).toFixed(2)}</title></rect>`;
    }),
  );
  const labels = scorers.map(
    (scorer, s) =>
      `<text x="${s * group + group / 2}" y="166" text-anchor="middle">${escapeHtml(scorer)}</text>`,
  );
  return `<svg width="${width}" height="172" role="img">${rects.join('')}${labels.join('')}</svg>`;
}

function histogram(variants: readonly VariantResult[]): string {
  const bins = 5;
  const rects = variants.flatMap((v, i) => {
    const counts = new Array<number>(bins).fill(0);
    for (const item of v.items) {
      const values = Object.values(item.scores);
      const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
      counts[Math.min(bins - 1, Math.floor(mean * bins))]!++;
    }
    const max = Math.max(1, v.items.length);
    return counts.map((count, b) => {
      const h = (count / max) * 140;
      const w = 60 / variants.length;
      return `<rect x="${b * 70 + 5 + i * w}" y="${150 - h}" width="${w - 2}" height="${h}" fill="${COLORS[i % COLORS.length]}"><title>${escapeHtml(v.variant)} ${b / bins}-${(b + 1) / bins}: ${count}</title></rect>`;
    });
  });
  const labels = Array.from(
    { length: bins },
    (_, b) =>
      `<text x="${b * 70 + 35}" y="166" text-anchor="middle">${(b / bins).toFixed(1)}-${((b + 1) / bins).toFixed(1)}</text>`,
  );
  return `<svg width="360" height="172" role="img">${rects.join('')}${labels.join('')}</svg>`;
}

function scatter(variants: readonly VariantResult[]): string {
  const maxTokens = Math.max(1, ...variants.flatMap((v) => v.items.map((item) => item.tokens)));
  const dots = variants.flatMap((v, i) =>
    v.items.map((item) => {
      const values = Object.values(item.scores);
      const score = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
      return `<circle cx="${20 + (item.tokens / maxTokens) * 320}" cy="${150 - score * 140}" r="4" fill="${COLORS[i % COLORS.length]}" fill-opacity=".7"><title>${escapeHtml(v.variant)} #${item.index}: ${item.tokens} tokens, score ${score.toFixed(2)}</title></circle>`;
    }),
  );
  return `<svg width="360" height="172" role="img"><line x1="20" y1="150" x2="345" y2="150" stroke="currentColor" stroke-opacity=".3"/><text x="20" y="166">0</text><text x="345" y="166" text-anchor="end">${maxTokens} tokens</text>${dots.join('')}</svg>`;
}
