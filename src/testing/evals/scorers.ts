import type { AgentStep } from '../../agent/run-result.js';
import type { SvcClient } from '../../api/svc-client.js';
import { validateJsonSchema } from '../../tools/validate-json-schema.js';

/** What a task produced for one item: its text, and the agent's run when it ran one. */
export interface TaskOutput {
  /** The answer text (or the output as JSON). */
  text: string;
  /** The structured output, when the task has one. */
  output?: unknown;
  /** The run's steps (tool calls and results), when the task ran an agent. */
  steps?: readonly AgentStep[];
  /** Tokens and cost of the task. */
  usage?: { totalTokens: number; cost?: number | undefined };
  /** File names of the documents the answer drew on. */
  sources?: readonly string[];
}

/** What a scorer sees of one item. */
export interface ScoreInput<Item> {
  item: Item;
  output: TaskOutput;
  /** Milliseconds the task took. */
  latencyMs: number;
  /** A client for scorers that ask the service (the LLM judge). */
  client: SvcClient;
}

/** A scorer: a name and a score in [0, 1] for an item, with an optional reason. */
export interface Scorer<Item = unknown> {
  name: string;
  score(
    input: ScoreInput<Item>,
  ): number | { score: number; reason?: string } | Promise<number | { score: number; reason?: string }>;
}

type FromItem<Item, T> = T | ((item: Item) => T);
const read = <Item, T>(value: FromItem<Item, T>, item: Item): T =>
  typeof value === 'function' ? (value as (item: Item) => T)(item) : value;

/** 1 when the text equals the expected text (trimmed). */
export function exact<Item>(expected: FromItem<Item, string>): Scorer<Item> {
  return {
    name: 'exact',
    score: ({ item, output }) => Number(output.text.trim() === read(expected, item).trim()),
  };
}

/** 1 when the text contains the expected text (case-insensitive). */
export function includes<Item>(expected: FromItem<Item, string>): Scorer<Item> {
  return {
    name: 'includes',
    score: ({ item, output }) =>
      Number(output.text.toLowerCase().includes(read(expected, item).toLowerCase())),
  };
}

/** 1 when the text matches the pattern. */
export function matches<Item>(pattern: FromItem<Item, RegExp>): Scorer<Item> {
  return { name: 'regex', score: ({ item, output }) => Number(read(pattern, item).test(output.text)) };
}

/** 1 when the output (or the text parsed as JSON) is valid against a JSON Schema. */
export function jsonSchemaValid<Item>(schema: Record<string, unknown>): Scorer<Item> {
  return {
    name: 'json-schema',
    score: ({ output }) => {
      let value = output.output;
      if (value === undefined) {
        try {
          value = JSON.parse(output.text) as unknown;
        } catch {
          return { score: 0, reason: 'not JSON' };
        }
      }
      const issues = validateJsonSchema(schema, value);
      return issues.length === 0
        ? 1
        : { score: 0, reason: issues.map((issue) => `${issue.path} ${issue.message}`).join('; ') };
    },
  };
}

/** An expected tool call: its name, and the arguments it must carry (a subset, compared as JSON). */
export interface ExpectedToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * The share of expected tool calls the run made: `order: 'exact'` needs them in that order (a longest
 * common subsequence), `'any'` as a set; an extra call lowers the score when `strict`.
 */
export function toolTrajectory<Item>(
  expected: FromItem<Item, ExpectedToolCall[]>,
  { order = 'exact', strict = false }: { order?: 'exact' | 'any'; strict?: boolean } = {},
): Scorer<Item> {
  return {
    name: 'tool-trajectory',
    score: ({ item, output }) => {
      const want = read(expected, item);
      const made = (output.steps ?? []).flatMap((step) => step.toolCalls);
      const fits = (call: (typeof made)[number], w: ExpectedToolCall) =>
        call.toolName === w.name &&
        Object.entries(w.arguments ?? {}).every(
          ([k, v]) =>
            JSON.stringify((call.input as Record<string, unknown> | undefined)?.[k]) === JSON.stringify(v),
        );
      let hit = 0;
      if (order === 'any') {
        const left = [...made];
        for (const w of want) {
          const at = left.findIndex((call) => fits(call, w));
          if (at >= 0) {
            hit++;
            left.splice(at, 1);
          }
        }
      } else {
        // Longest common subsequence of expected and made calls.
        const table = Array.from({ length: want.length + 1 }, () =>
          new Array<number>(made.length + 1).fill(0),
        );
        for (let i = 1; i <= want.length; i++)
          for (let j = 1; j <= made.length; j++)
            table[i]![j] = fits(made[j - 1]!, want[i - 1]!)
              ? table[i - 1]![j - 1]! + 1
              : Math.max(table[i - 1]![j]!, table[i]![j - 1]!);
        hit = table[want.length]![made.length]!;
      }
      const denominator = strict ? Math.max(want.length, made.length) : want.length;
      const score = denominator === 0 ? Number(made.length === 0 || !strict) : hit / denominator;
      return { score, reason: `made ${made.map((call) => call.toolName).join(', ') || 'no calls'}` };
    },
  };
}

/** 1 when the answer's sources include the given file name. */
export function citesSource<Item>(fileName: FromItem<Item, string>): Scorer<Item> {
  return {
    name: 'cites-source',
    score: ({ item, output }) => Number((output.sources ?? []).includes(read(fileName, item))),
  };
}

/** Budgets an item must stay within: 1 when all hold, else 0 with the one broken. */
export function budget<Item>(limits: {
  turns?: number;
  tokens?: number;
  cost?: number;
  latencyMs?: number;
}): Scorer<Item> {
  return {
    name: 'budget',
    score: ({ output, latencyMs }) => {
      const actual = {
        turns: output.steps?.length ?? 0,
        tokens: output.usage?.totalTokens ?? 0,
        cost: output.usage?.cost ?? 0,
        latencyMs,
      };
      for (const [key, limit] of Object.entries(limits)) {
        const value = actual[key as keyof typeof actual];
        if (limit !== undefined && value > limit) return { score: 0, reason: `${key} ${value} > ${limit}` };
      }
      return 1;
    },
  };
}

/**
 * An LLM judge: asks a model through the service to grade the answer against a rubric, as JSON
 * `{ "score": 0..1, "reason": "..." }`. On the emulator, script its answers for deterministic evals.
 */
export function llmJudge<Item>({
  rubric,
  model = 'svc-3.5-flash',
  name = 'llm-judge',
}: {
  rubric: FromItem<Item, string>;
  model?: string;
  name?: string;
}): Scorer<Item> {
  return {
    name,
    async score({ item, output, client }) {
      const completion = await client.chat.completions.create({
        model,
        messages: [
          {
            role: 'system',
            content: 'You grade answers. Reply with JSON {"score": number from 0 to 1, "reason": string}.',
          },
          {
            role: 'user',
            content: `Rubric: ${read(rubric, item)}\n\nItem: ${JSON.stringify(item)}\n\nAnswer: ${output.text}`,
          },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'grade',
            strict: true,
            schema: {
              type: 'object',
              properties: { score: { type: 'number', minimum: 0, maximum: 1 }, reason: { type: 'string' } },
              required: ['score', 'reason'],
            },
          },
        },
      });
      const grade = JSON.parse(completion.choices[0]?.message.content ?? '{}') as {
        score?: unknown;
        reason?: unknown;
      };
      const score = typeof grade.score === 'number' ? Math.min(1, Math.max(0, grade.score)) : 0;
      return { score, reason: typeof grade.reason === 'string' ? grade.reason : 'no reason' };
    },
  };
}
