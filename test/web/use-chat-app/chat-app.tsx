import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

/**
 * A chat page as `useChat` users write it (@ai-sdk/react 3): the chat id in the address, the
 * conversation restored from the server on load, `resume: true` to pick up a run in progress, Stop,
 * Regenerate, Approve/Reject on tool parts waiting for approval. `?resume=0` leaves resume off.
 */
const params = new URLSearchParams(location.search);
const chatId = params.get('chat') ?? 'default';
const resume = params.get('resume') !== '0';

function Chat({ initial }: { initial: UIMessage[] }) {
  const recoverRef = useRef<() => Promise<void>>(async () => {});
  // How often useChat announced a call for the client (an invalid input must not count).
  const [toolCalls, setToolCalls] = useState(0);
  const {
    messages,
    setMessages,
    sendMessage,
    status,
    error,
    stop,
    regenerate,
    addToolApprovalResponse,
    resumeStream,
  } = useChat({
    id: chatId,
    messages: initial,
    resume,
    transport: new DefaultChatTransport({ api: '/api/ui' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onToolCall: () => setToolCalls((count) => count + 1),
    // The connection dropped mid-answer (a server restart): recover by ourselves.
    onFinish: ({ isDisconnect }) => {
      if (isDisconnect) void recoverRef.current();
    },
  });
  /** Waits for the server to answer again, takes its conversation, and reconnects to a run still going. */
  recoverRef.current = async () => {
    for (;;) {
      try {
        const response = await fetch(`/api/ui/${encodeURIComponent(chatId)}/messages`);
        if (response.ok) {
          setMessages((await response.json()) as UIMessage[]);
          break;
        }
      } catch {
        // Still down: try again.
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await resumeStream();
  };
  const [input, setInput] = useState('');
  const busy = status === 'submitted' || status === 'streaming';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!input.trim() || busy) return;
    void sendMessage({ text: input });
    setInput('');
  };
  return (
    <main>
      <p id="status">{status}</p>
      <p id="tool-calls">{toolCalls}</p>
      {error && <p id="error">{error.message}</p>}
      <ul id="messages">
        {messages.map((message) => (
          <li key={message.id} className={`msg ${message.role}`}>
            {message.parts.map((part, index) => {
              const key = `${message.id}-${index}`;
              if (part.type === 'text')
                return (
                  <p key={key} className="text">
                    {part.text}
                  </p>
                );
              if (part.type === 'reasoning')
                return (
                  <details key={key} className="reasoning">
                    <summary>Reasoning</summary>
                    <pre>{part.text}</pre>
                  </details>
                );
              if (part.type.startsWith('data-') && 'data' in part)
                return (
                  <p key={key} className="data" data-type={part.type}>
                    {JSON.stringify(part.data)}
                  </p>
                );
              if (!isToolUIPart(part)) return null;
              const name = part.type.slice('tool-'.length);
              return (
                <div key={key} className="tool" data-tool={name} data-state={part.state}>
                  <h2>{name}</h2>
                  <pre className="input">{JSON.stringify(part.input)}</pre>
                  {part.state === 'output-available' && (
                    <pre className="output">{JSON.stringify(part.output)}</pre>
                  )}
                  {part.state === 'output-error' && <pre className="output">{part.errorText}</pre>}
                  {part.state === 'approval-requested' && (
                    <>
                      <button
                        type="button"
                        onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}
                      >
                        Approve {name}
                      </button>
                      <button
                        type="button"
                        onClick={() =>
                          addToolApprovalResponse({
                            id: part.approval.id,
                            approved: false,
                            reason: 'not now',
                          })
                        }
                      >
                        Reject {name}
                      </button>
                    </>
                  )}
                </div>
              );
            })}
          </li>
        ))}
      </ul>
      <form onSubmit={submit}>
        <label htmlFor="prompt">Message</label>
        <input id="prompt" value={input} onChange={(event) => setInput(event.target.value)} />
        <button id="send" type="submit" disabled={busy}>
          Send
        </button>
        <button id="stop" type="button" disabled={!busy} onClick={() => void stop()}>
          Stop
        </button>
        <button
          id="regenerate"
          type="button"
          disabled={busy || messages.length === 0}
          onClick={() => void regenerate()}
        >
          Regenerate
        </button>
      </form>
    </main>
  );
}

/** Loads the conversation (and a pending approval) before `useChat` starts with it. */
function App() {
  const [initial, setInitial] = useState<UIMessage[] | undefined>();
  useEffect(() => {
    void fetch(`/api/ui/${encodeURIComponent(chatId)}/messages`)
      .then((response) => response.json() as Promise<UIMessage[]>)
      .then(setInitial);
  }, []);
  return initial ? <Chat initial={initial} /> : <p id="loading">Loading</p>;
}

createRoot(document.getElementById('root')!).render(<App />);
