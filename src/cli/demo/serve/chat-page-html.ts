import { escapeHtml } from '../../../core/escape-html.js';

/** Options of the chat page. */
export interface ChatPageOptions {
  /** Shown in the header, e.g. `demo agent on the embedded emulator`. */
  subtitle: string;
}

/** The one HTML page of `svc-agents serve`; its script is served at `/app.js`. */
export function renderChatPage({ subtitle }: ChatPageOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc-agents chat</title>
<style>${CSS}</style>
</head>
<body>
<a class="skip" href="#prompt">Skip to the message box</a>
<header>
  <h1>svc-agents chat</h1>
  <p class="subtitle">${escapeHtml(subtitle)}</p>
</header>
<main>
  <ol id="log" class="log" aria-live="polite" aria-label="Conversation"></ol>
</main>
<footer>
  <form id="upload" class="upload">
    <label for="file">Add a file to the knowledge base</label>
    <input id="file" name="file" type="file" accept=".txt,.md,.csv,.json,.html,.pdf,text/*">
    <p id="upload-status" class="status" role="status"></p>
  </form>
  <form id="attach" class="upload">
    <label for="image">Attach an image for the vision model</label>
    <input id="image" name="image" type="file" accept="image/png,image/jpeg,image/webp,image/gif">
    <p id="attach-status" class="status" role="status"></p>
  </form>
  <form id="composer" class="composer">
    <label for="prompt" class="visually-hidden">Message</label>
    <textarea id="prompt" name="prompt" rows="2" placeholder="Ask something… (Enter sends, Shift+Enter adds a line)" required></textarea>
    <button id="send" type="submit">Send</button>
    <button id="stop" type="button" hidden>Stop</button>
  </form>
</footer>
<script type="module" src="/app.js"></script>
</body>
</html>
`;
}

const CSS = `
:root { color-scheme: light dark; --bg: #f7f7f8; --fg: #1b1b1f; --muted: #5d5d66; --card: #fff; --line: #d9d9de;
  --accent: #2152d9; --ok: #1d7a3a; --bad: #b3261e; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg: #17171a; --fg: #ececf1; --muted: #a3a3ad; --card: #222227;
  --line: #3a3a42; --accent: #8ab4ff; --ok: #6fd28f; --bad: #ff8a80; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); display: flex; flex-direction: column; height: 100vh;
  height: 100dvh; font-size: 16px; line-height: 1.5; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--card); padding: 4px 8px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header { padding: 10px max(16px, calc((100% - 828px) / 2)); border-bottom: 1px solid var(--line); }
h1 { font-size: 1.15rem; margin: 0; } .subtitle { margin: 0; color: var(--muted); font-size: .9rem; }
main { flex: 1; overflow-y: auto; padding: 12px max(16px, calc((100% - 828px) / 2)); }
.log { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 12px; }
.msg { padding: 10px 14px; border-radius: 12px; background: var(--card); border: 1px solid var(--line);
  overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; max-width: 85%; background: var(--accent); color: #fff; border-color: transparent; }
@media (prefers-color-scheme: dark) { .msg.user { color: #111; } }
.msg .who { font-size: .75rem; color: var(--muted); margin: 0 0 2px; } .msg.user .who { color: inherit; opacity: .85; }
.text { white-space: pre-wrap; }
.msg img.attached { display: block; max-width: 240px; max-height: 180px; border-radius: 8px; margin-top: 6px; }
.msg audio { display: block; width: 100%; margin-top: 6px; }
details.reasoning { color: var(--muted); font-size: .9rem; margin: 4px 0; }
details.reasoning pre, .tool pre { white-space: pre-wrap; margin: 4px 0; font-size: .85rem;
  font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.tool { border-left: 3px solid var(--accent); padding: 4px 10px; margin: 8px 0; background: var(--bg); border-radius: 6px; }
.tool h2 { font-size: .9rem; margin: 0; } .tool .state { font-weight: normal; color: var(--muted); }
.tool.error { border-left-color: var(--bad); } .tool.done { border-left-color: var(--ok); }
.approval { display: flex; gap: 8px; flex-wrap: wrap; margin: 6px 0; }
button { font: inherit; padding: 8px 16px; border-radius: 8px; border: 1px solid var(--line); background: var(--card);
  color: var(--fg); cursor: pointer; min-height: 44px; }
button.primary, #send { background: var(--accent); color: #fff; border-color: transparent; }
@media (prefers-color-scheme: dark) { button.primary, #send { color: #111; } }
button:disabled { opacity: .6; cursor: default; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.error-text { color: var(--bad); }
footer { background: var(--bg); border-top: 1px solid var(--line); padding: 8px 16px 12px; }
footer form { max-width: 860px; margin: 0 auto; }
.upload { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; font-size: .9rem; margin-bottom: 8px; }
.upload input { max-width: 100%; } .status { margin: 0; color: var(--muted); }
.composer { display: flex; gap: 8px; align-items: flex-end; }
textarea { flex: 1; font: inherit; padding: 10px; border-radius: 10px; border: 1px solid var(--line); background: var(--card);
  color: var(--fg); resize: vertical; min-height: 48px; }
`;
