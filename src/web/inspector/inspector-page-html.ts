import { createHash } from 'node:crypto';

/** The one HTML page of the run inspector; its script is served beside it at `inspector.js`. */
export function renderInspectorPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc-agents inspector</title>
<style>${INSPECTOR_CSS}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <h1><a href="#/">svc-agents inspector</a></h1>
  <nav aria-label="Views"><a href="#/">Runs</a></nav>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
<script type="module" src="inspector.js"></script>
</body>
</html>
`;
}

const INSPECTOR_CSS = `
:root { color-scheme: light dark; --bg: #f7f7f8; --fg: #1b1b1f; --muted: #5d5d66; --card: #fff; --line: #d9d9de;
  --accent: #2152d9; --ok: #1d7a3a; --bad: #b3261e; --warn: #9a5b00; --queued: #8d8d99; --wait: #c9a227;
  --stream: #2152d9; --tool: #1d7a3a; --eager: #0e8a8a; --approval: #c9a227; --ratelimit: #b0178a;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg: #17171a; --fg: #ececf1; --muted: #a3a3ad; --card: #222227;
  --line: #3a3a42; --accent: #8ab4ff; --ok: #6fd28f; --bad: #ff8a80; --warn: #ffb74d; --queued: #6b6b76;
  --wait: #d8b94a; --stream: #8ab4ff; --tool: #6fd28f; --eager: #5fd0d0; --approval: #d8b94a; --ratelimit: #f48fd8; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font-size: 15px; line-height: 1.45; }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--card); padding: 4px 8px; }
header { display: flex; gap: 24px; align-items: baseline; padding: 10px 20px; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.1rem; margin: 0; } header h1 a { color: inherit; text-decoration: none; }
main { padding: 16px 20px 40px; max-width: 1400px; margin: 0 auto; outline: none; }
h2 { font-size: 1.15rem; margin: 0 0 8px; } h3 { font-size: 1rem; margin: 20px 0 8px; }
.muted { color: var(--muted); } .bad { color: var(--bad); } .ok { color: var(--ok); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: flex-end; margin-bottom: 12px; }
form.filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
input, select, textarea, button { font: inherit; color: var(--fg); background: var(--card); border: 1px solid var(--line);
  border-radius: 6px; padding: 5px 8px; }
button { cursor: pointer; min-height: 34px; } button:disabled { opacity: .55; cursor: default; }
button.primary { background: var(--accent); color: #fff; border-color: transparent; }
@media (prefers-color-scheme: dark) { button.primary { color: #111; } }
.tabs { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 10px; }
.tabs button[aria-pressed="true"] { border-color: var(--accent); box-shadow: inset 0 -2px 0 var(--accent); }
table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; font-size: .9rem; }
th button { border: none; background: none; padding: 0; font-weight: 600; min-height: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-size: .8rem; padding: 1px 6px; border-radius: 10px; border: 1px solid var(--line); white-space: nowrap; }
.status.completed { color: var(--ok); } .status.failed { color: var(--bad); } .status.interrupted { color: var(--warn); }
.status.running { color: var(--accent); }
.pager { display: flex; gap: 8px; margin-top: 10px; align-items: center; }
.cards { display: flex; flex-wrap: wrap; gap: 8px 20px; margin: 8px 0 12px; padding: 10px 12px; background: var(--card);
  border: 1px solid var(--line); border-radius: 8px; }
.cards div { display: flex; flex-direction: column; } .cards dt { font-size: .75rem; color: var(--muted); } .cards dd { margin: 0; }
.gantt { position: relative; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 8px 4px; }
.lane { display: grid; grid-template-columns: 220px 1fr; align-items: center; min-height: 24px; gap: 8px; }
.lane .name { font-size: .8rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.lane .track { position: relative; height: 18px; border-left: 1px solid var(--line); }
.seg { position: absolute; top: 3px; height: 12px; border-radius: 3px; min-width: 2px; }
.seg.queued { background: var(--queued); } .seg.waiting { background: var(--wait); opacity: .6; }
.seg.streaming { background: var(--stream); } .seg.failed { background: var(--bad); } .seg.tool { background: var(--tool); } .seg.tool.eager { background: var(--eager); }
.seg.tool.error, .seg.tool.aborted, .seg.tool.rejected { background: var(--bad); }
.seg.approval { background: repeating-linear-gradient(45deg, var(--approval), var(--approval) 4px, transparent 4px, transparent 8px);
  border: 1px solid var(--approval); }
.mark { position: absolute; top: 0; width: 3px; height: 18px; border-radius: 1px; }
.mark.retry { background: var(--warn); } .mark.ratelimit { background: var(--ratelimit); } .mark.fallback { background: var(--bad); width: 5px; }
.mark.resume { background: var(--accent); } .mark.takeover { background: var(--bad); width: 5px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: .75rem; color: var(--muted); margin: 6px 0 0; padding: 0; list-style: none; }
.legend span.swatch { display: inline-block; width: 12px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: middle; }
.swatch.queued { background: var(--queued); } .swatch.waiting { background: var(--wait); opacity: .6; }
.swatch.streaming { background: var(--stream); } .swatch.tool { background: var(--tool); } .swatch.eager { background: var(--eager); }
.swatch.approval { border: 1px solid var(--approval); } .swatch.retry { background: var(--warn); }
.swatch.ratelimit { background: var(--ratelimit); } .swatch.failed { background: var(--bad); } .swatch.takeover { background: var(--bad); }
.swatch.resume { background: var(--accent); }
.chat { list-style: none; padding: 0; margin: 0; display: flex; flex-direction: column; gap: 8px; }
.msg { padding: 8px 12px; border-radius: 10px; background: var(--card); border: 1px solid var(--line); overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; max-width: 85%; border-color: var(--accent); }
.msg.system { color: var(--muted); font-size: .9rem; }
.msg .who { font-size: .72rem; color: var(--muted); margin: 0 0 2px; }
.msg .text { white-space: pre-wrap; }
.toolcard { border-left: 3px solid var(--tool); padding: 4px 10px; margin: 6px 0; background: var(--bg); border-radius: 6px; font-size: .85rem; }
.toolcard.error, .toolcard.aborted, .toolcard.rejected { border-left-color: var(--bad); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; font-size: .8rem; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
details { margin: 4px 0; } summary { cursor: pointer; }
.diff .added { color: var(--ok); } .diff .removed { color: var(--bad); } .diff .changed { color: var(--warn); }
.actions { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-end; padding: 10px 12px; background: var(--card);
  border: 1px solid var(--line); border-radius: 8px; }
.actions fieldset { border: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; }
.actions label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
.split { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 20px; }
@media (max-width: 900px) { .split { grid-template-columns: 1fr; } .lane { grid-template-columns: 120px 1fr; } }
.live { font-size: .8rem; color: var(--accent); }
`;

/**
 * The page's policy: its own script only (no inline script), its one inline style block by hash, requests
 * to its own origin only, nothing framed or loaded from elsewhere. Bars are placed through the CSSOM
 * (`element.style.left`), which a style policy does not restrict.
 */
export const INSPECTOR_CONTENT_SECURITY_POLICY =
  `default-src 'none'; script-src 'self'; style-src 'sha256-${createHash('sha256').update(INSPECTOR_CSS).digest('base64')}'; ` +
  "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";
