// The chat page of `svc-agents serve`: plain DOM, bundled by esbuild with the svc-agents/client client.
import {
  type AgentEventJson,
  type ChatRun,
  type ChatSessionSnapshot,
  type ClientApprovalDecision,
  createChatClient,
} from '../../../../browser-client/index.js';
import { toWavBlob } from './to-wav-blob.js';

const client = createChatClient({ baseUrl: '/api' });
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const log = $<HTMLOListElement>('log');
const composer = $<HTMLFormElement>('composer');
const prompt = $<HTMLTextAreaElement>('prompt');
const send = $<HTMLButtonElement>('send');
const stop = $<HTMLButtonElement>('stop');
/** The run the page follows, which Stop stops (on whichever server runs it). */
let followedRunId: string | undefined;
const fileInput = $<HTMLInputElement>('file');
const uploadStatus = $<HTMLParagraphElement>('upload-status');
const imageInput = $<HTMLInputElement>('image');
const attachStatus = $<HTMLParagraphElement>('attach-status');
/** The image attached to the next message, as a data URI. */
let attachedImage: { name: string; url: string } | undefined;

const SESSION_KEY = 'svc-agents.session';
const RUN_KEY = 'svc-agents.run';
const sessionId = localStorage.getItem(SESSION_KEY) ?? crypto.randomUUID();
localStorage.setItem(SESSION_KEY, sessionId);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function addMessage(role: 'user' | 'assistant', text?: string): HTMLLIElement {
  const li = el('li', `msg ${role}`);
  li.append(el('p', 'who', role === 'user' ? 'You' : 'Assistant'));
  if (text !== undefined) li.append(el('div', 'text', text));
  log.append(li);
  li.scrollIntoView({ block: 'end' });
  return li;
}

const pretty = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** Renders one assistant turn (and its continuations after approvals) from the run's events. */
class AssistantView {
  readonly li = addMessage('assistant');
  #text: HTMLDivElement | undefined;
  #reasoning: HTMLPreElement | undefined;
  /** The step's spoken answer so far: base64 pieces (pcm when streamed). */
  #audio: string[] = [];
  #transcript = '';
  readonly #tools = new Map<string, HTMLDivElement>();
  /** Calls waiting for a decision, with the decision once taken. */
  readonly pending = new Map<string, boolean | undefined>();

  handle(event: AgentEventJson): void {
    switch (event.type) {
      case 'start-step':
        this.#text = undefined;
        this.#reasoning = undefined;
        break;
      case 'reasoning-delta': {
        if (!this.#reasoning) {
          const details = el('details', 'reasoning');
          details.append(el('summary', undefined, 'Reasoning'));
          this.#reasoning = el('pre');
          details.append(this.#reasoning);
          this.li.append(details);
        }
        this.#reasoning.textContent += event.text;
        break;
      }
      case 'text-delta':
        this.#appendText(event.text);
        break;
      case 'audio-delta':
        this.#audio.push(event.data);
        // An audio model may send only the transcript of what it says: it is the answer's text.
        if (event.transcript) this.#transcript += event.transcript;
        break;
      case 'finish-step':
        if (this.#audio.length > 0) {
          if (!this.#text && this.#transcript) this.#appendText(this.#transcript);
          const player = el('audio');
          player.controls = true;
          player.src = URL.createObjectURL(toWavBlob(this.#audio));
          player.setAttribute('aria-label', 'Spoken answer');
          this.li.append(player);
        }
        this.#audio = [];
        this.#transcript = '';
        break;
      case 'tool-call':
        this.#tool(event.toolCallId, event.toolName, event.input);
        break;
      case 'tool-result': {
        const box = this.#tool(event.toolCallId, event.toolName, event.input);
        box.classList.add('done');
        this.#setState(box, 'done');
        box.append(el('pre', 'result', `Result: ${pretty(event.output)}`));
        this.#text = undefined;
        break;
      }
      case 'tool-error': {
        const box = this.#tool(event.toolCallId, event.toolName, event.input);
        box.classList.add('error');
        this.#setState(box, 'failed');
        box.append(el('pre', 'result error-text', `Error: ${event.error.message}`));
        this.#text = undefined;
        break;
      }
      case 'source': {
        // The document a search result drew on, under the call that found it.
        const box = this.#tools.get(event.toolCallId) ?? this.li;
        box.append(el('p', 'source', `Source: ${event.title}`));
        break;
      }
      case 'hosted-tool-call':
        this.#tool(event.toolCallId, event.name ?? event.toolType, event.arguments ?? '');
        break;
      case 'tool-approval-request':
        this.#askApproval(event.toolCallId, event.toolName, event.input);
        break;
      case 'error':
        this.li.append(el('p', 'error-text', `Error: ${event.error.message}`));
        break;
      case 'abort':
        this.li.append(el('p', 'error-text', 'The run was stopped.'));
        break;
      default:
        break;
    }
    this.li.scrollIntoView({ block: 'end' });
  }

  #appendText(text: string) {
    if (!this.#text) {
      this.#text = el('div', 'text');
      this.li.append(this.#text);
    }
    this.#text.textContent += text;
  }

  #tool(id: string, name: string, input: unknown): HTMLDivElement {
    let box = this.#tools.get(id);
    if (box) return box;
    box = el('div', 'tool');
    box.dataset.toolCallId = id;
    const title = el('h2', undefined, `Tool ${name} `);
    title.append(el('span', 'state', '(running)'));
    box.append(title, el('pre', 'args', `Arguments: ${pretty(input)}`));
    this.#tools.set(id, box);
    this.li.append(box);
    return box;
  }

  #setState(box: HTMLElement, state: string) {
    const span = box.querySelector('.state');
    if (span) span.textContent = `(${state})`;
  }

  #askApproval(id: string, name: string, input: unknown) {
    const box = this.#tool(id, name, input);
    this.#setState(box, 'needs your approval');
    this.pending.set(id, undefined);
    const row = el('div', 'approval');
    row.setAttribute('role', 'group');
    row.setAttribute('aria-label', `Approve or reject ${name}`);
    const approve = el('button', 'primary', 'Approve');
    const reject = el('button', undefined, 'Reject');
    approve.type = reject.type = 'button';
    approve.setAttribute('aria-label', `Approve ${name}`);
    reject.setAttribute('aria-label', `Reject ${name}`);
    const decide = (approved: boolean) => {
      approve.disabled = reject.disabled = true;
      this.pending.set(id, approved);
      this.#setState(box, approved ? 'approved' : 'rejected');
      this.onDecision?.();
    };
    approve.addEventListener('click', () => decide(true));
    reject.addEventListener('click', () => decide(false));
    row.append(approve, reject);
    box.append(row);
    queueMicrotask(() => approve.focus());
  }

  onDecision: (() => void) | undefined;
}

function setBusy(busy: boolean) {
  send.disabled = busy;
  stop.hidden = !busy;
  prompt.setAttribute('aria-busy', String(busy));
}

/** Waits until every call `view` asks about is decided, and answers the decisions. */
async function decisionsOf(view: AssistantView): Promise<ClientApprovalDecision[]> {
  await new Promise<void>((resolve) => {
    const check = () => {
      if ([...view.pending.values()].every((decision) => decision !== undefined)) resolve();
    };
    view.onDecision = check;
    check();
  });
  const decisions = [...view.pending].map(([toolCallId, approved]) => ({
    toolCallId,
    approved: approved === true,
    ...(approved ? {} : { reason: 'The user rejected it in the web chat.' }),
  }));
  view.pending.clear();
  view.onDecision = undefined;
  return decisions;
}

/** Follows a run into `view`; after a pause, waits for every decision and follows the continued run. */
async function follow(run: ChatRun, view: AssistantView, promptText: string): Promise<void> {
  setBusy(true);
  // Screen readers announce the answer once it is complete, not every streamed piece.
  view.li.setAttribute('aria-busy', 'true');
  try {
    let current = run;
    for (;;) {
      void current.runId.then((runId) => {
        followedRunId = runId;
        sessionStorage.setItem(RUN_KEY, JSON.stringify({ runId, prompt: promptText }));
      });
      for await (const event of current) view.handle(event);
      sessionStorage.removeItem(RUN_KEY);
      if (view.pending.size === 0) return;
      current = client.decide(await current.runId, await decisionsOf(view));
    }
  } catch (error) {
    view.li.append(el('p', 'error-text', `Error: ${(error as Error).message}`));
  } finally {
    followedRunId = undefined;
    view.li.removeAttribute('aria-busy');
    setBusy(false);
    prompt.focus();
  }
}

function submit() {
  const text = prompt.value.trim();
  if (!text || send.disabled) return;
  prompt.value = '';
  const sent = addMessage('user', text);
  const image = attachedImage;
  attachedImage = undefined;
  attachStatus.textContent = '';
  if (image) {
    const img = el('img', 'attached');
    img.src = image.url;
    img.alt = image.name;
    sent.append(img);
  }
  const options = image ? { sessionId, images: [image.url] } : { sessionId };
  void follow(client.send(text, options), new AssistantView(), text);
}

// The server stops the run where it runs; the stream then ends with its `abort` event.
stop.addEventListener('click', () => {
  if (followedRunId) void client.stop(followedRunId).catch(() => {});
});

composer.addEventListener('submit', (event) => {
  event.preventDefault();
  submit();
});
prompt.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit();
  }
});

fileInput.addEventListener('change', async () => {
  const file = fileInput.files?.[0];
  if (!file) return;
  uploadStatus.textContent = `Uploading ${file.name}…`;
  try {
    const query = new URLSearchParams({ sessionId, name: file.name });
    const response = await fetch(`/api/files?${query}`, {
      method: 'POST',
      headers: { 'content-type': file.type || 'application/octet-stream' },
      body: file,
    });
    const body = (await response.json()) as { error?: { message: string }; fileName?: string };
    if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
    uploadStatus.textContent = `${body.fileName} is in the knowledge base; ask about it.`;
  } catch (error) {
    uploadStatus.textContent = `Upload failed: ${(error as Error).message}`;
  } finally {
    fileInput.value = '';
  }
});

imageInput.addEventListener('change', () => {
  const file = imageInput.files?.[0];
  if (!file) return;
  const reader = new FileReader();
  reader.addEventListener('load', () => {
    attachedImage = { name: file.name, url: String(reader.result) };
    attachStatus.textContent = `${file.name} goes with what you send next.`;
    imageInput.value = '';
    prompt.focus();
  });
  reader.addEventListener('error', () => {
    attachStatus.textContent = `Could not read ${file.name}.`;
  });
  reader.readAsDataURL(file);
});

/**
 * Shows the conversation so far and picks up where it was (after a reload): a run still going is
 * followed, and the calls a paused run waits for get their Approve/Reject buttons again.
 */
async function restore() {
  const saved = sessionStorage.getItem(RUN_KEY);
  let snapshot: ChatSessionSnapshot | undefined;
  try {
    snapshot = await client.session(sessionId);
  } catch {
    snapshot = undefined;
  }
  for (const message of snapshot?.messages ?? []) {
    const content = typeof message.content === 'string' ? message.content : '';
    if ((message.role === 'user' || message.role === 'assistant') && content)
      addMessage(message.role, content);
  }
  const active = saved ? (JSON.parse(saved) as { runId: string; prompt: string }) : undefined;
  const pending = snapshot?.pendingApprovals ?? [];
  if (active && snapshot?.activeRunId === active.runId) {
    if (active.prompt) addMessage('user', active.prompt);
    await follow(client.reconnect(active.runId), new AssistantView(), active.prompt);
  } else if (snapshot?.pausedRunId && pending.length > 0) {
    sessionStorage.removeItem(RUN_KEY);
    const view = new AssistantView();
    for (const call of pending)
      view.handle({
        type: 'tool-approval-request',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.arguments,
      });
    // A new message would be refused until the calls are decided: the decision comes first (nothing
    // runs yet, so there is nothing to stop).
    setBusy(true);
    stop.hidden = true;
    const decisions = await decisionsOf(view);
    await follow(client.decide(snapshot.pausedRunId, decisions), view, '');
  } else {
    sessionStorage.removeItem(RUN_KEY);
    prompt.focus();
  }
}

void restore();
