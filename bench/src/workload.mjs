// The one workload every contestant runs, and the scripted answers of the fake server.
// Kept free of imports so the fake server process stays small and starts fast.

/** Model name every contestant sends; the fake server ignores it except for `decode-*`. */
export const MODEL = 'svc-3.5-flash';
/** API key every contestant sends; the fake server only checks that one is present. */
export const API_KEY = 'bench-key';
/** Tool turns before the final answer. */
export const TOOL_TURNS = 3;
/** Cities asked for, one per tool turn. */
export const CITIES = ['Paris', 'Tokyo', 'Lima'];
/** Reasoning tokens streamed at the start of every turn. */
export const REASONING_TOKENS = 16;
/** Tokens of the final answer. */
export const FINAL_TOKENS = 200;
/** Chunks of the decode-throughput stream. */
export const DECODE_CHUNKS = 20_000;

export const SYSTEM_PROMPT = 'You are a weather assistant. Call get_weather once per city, then summarise.';
export const USER_PROMPT = `What is the weather in ${CITIES.join(', ')}?`;
export const TOOL_NAME = 'get_weather';
export const TOOL_DESCRIPTION = 'Get the current weather for a city.';

const WORDS = [
  'the',
  'sky',
  'over',
  'Paris',
  'is',
  'clear',
  'and',
  'Tokyo',
  'sees',
  'light',
  'rain',
  'while',
  'Lima',
];

/** The tokens of the final answer, in order. */
export const FINAL_ANSWER_TOKENS = Array.from(
  { length: FINAL_TOKENS },
  (_, i) => `${i === 0 ? '' : ' '}${WORDS[i % WORDS.length]}`,
);
/** The final answer every run must end with. */
export const FINAL_TEXT = FINAL_ANSWER_TOKENS.join('');
/** The reasoning tokens of a turn. */
export const REASONING = Array.from({ length: REASONING_TOKENS }, (_, i) => ` step${i}`);

/** What the local tool returns; deterministic so the server can check it came back. */
export function weatherOf(city) {
  return { city, tempC: 10 + city.length, sky: 'clear' };
}

/** The arguments JSON of the call made in `turn`, and the fragments it is streamed in. */
export function toolArguments(turn) {
  const text = JSON.stringify({ city: CITIES[turn] });
  const cut = [0, 7, 10, 13, text.length];
  const fragments = [];
  for (let i = 0; i + 1 < cut.length; i++) fragments.push(text.slice(cut[i], cut[i + 1]));
  return { text, fragments };
}

/** The id of the call made in `turn`. */
export function toolCallId(turn) {
  return `call_${turn}_weather`;
}

// The slow-stream multi-tool latency workload: one turn streams 3 `get_weather` calls whose arguments
// complete at these times after the request (ms), the stream ends later, each tool takes LATENCY_TOOL_MS,
// then a short answer. It measures when each tool starts relative to the end of its own arguments.
/** Model name that selects the latency workload on the fake server. */
export const LATENCY_MODEL = 'slow-multi';
/** When each call's last argument fragment is sent, ms after the request arrived. */
export const LATENCY_ARGS_DONE_MS = [364, 606, 848];
/** When the tool turn's stream ends (finish_reason, [DONE]). */
export const LATENCY_STREAM_END_MS = 970;
/** How long the tool takes per call. */
export const LATENCY_TOOL_MS = 900;
/** The answer after the tool turn. */
export const LATENCY_TEXT = 'Paris, Tokyo and Lima are clear.';
/** Wall time per run if each tool started as soon as its arguments were complete (the answer is instant). */
export const LATENCY_EAGER_IDEAL_MS = Math.max(
  LATENCY_STREAM_END_MS,
  ...LATENCY_ARGS_DONE_MS.map((at) => at + LATENCY_TOOL_MS),
);
