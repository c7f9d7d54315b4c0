// Small DOM and formatting helpers of the inspector page (plain DOM: no framework, nothing from the internet).

type Child = Node | string | undefined | false | null;

/** An element with attributes (`on*` as listeners) and children; text is always set as text, never as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | EventListener | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (name === 'className') node.className = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children)
    if (child !== undefined && child !== false && child !== null) node.append(child);
  return node;
}

/** GET or POST JSON of the inspector's API (relative to the page, so the handler can be mounted anywhere). */
export async function api<T>(path: string, init?: { method: 'POST'; body: unknown }): Promise<T> {
  const response = await fetch(`api/${path}`, {
    ...(init && {
      method: init.method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(init.body),
    }),
  });
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

/** `2026-11-28 12:01:02`. */
export function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** `840 ms`, `3.2 s`, `4 min 10 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `$0.0123`, or `—` when unknown. */
export function formatUsd(usd: number | undefined): string {
  return usd === undefined ? '—' : `$${usd < 0.01 ? usd.toFixed(5) : usd.toFixed(4)}`;
}

/** The text of a message's content (parts joined; images named). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content == null ? '' : JSON.stringify(content);
  return content
    .map((part: { type?: string; text?: string }) =>
      part.type === 'text' ? (part.text ?? '') : `[${part.type}]`,
    )
    .join('\n');
}

/** A `<pre>` of a JSON value. */
export function jsonBlock(value: unknown): HTMLPreElement {
  return el('pre', {}, JSON.stringify(value, null, 2) ?? 'undefined');
}
