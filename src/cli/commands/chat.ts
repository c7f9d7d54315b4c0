import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { PriceTable } from '../../agent/cost/price-table.js';
import type { RunResult } from '../../agent/run-result.js';
import type { ContentPart } from '../../api/types/chat.js';
import {
  type ChatRequestFlags,
  chatRequestOptions,
  readChatRequestFlags,
  writeAudioOut,
} from '../chat/chat-flags.js';
import { ChatSession, type SendOptions } from '../chat/chat-session.js';
import { chooseKnowledgeBases, knowledgeBaseFlags } from '../chat/choose-knowledge-bases.js';
import { prepareDemo } from '../chat/demo-script.js';
import { createEventRenderer } from '../chat/render-agent-events.js';
import { runRepl } from '../chat/run-repl.js';
import { runSlashCommand } from '../chat/slash-commands.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { nullStream } from '../command.js';
import { connect } from '../connect.js';
import { createDemoAgent } from '../demo/demo-agent.js';
import { formatCliError } from '../format-cli-error.js';
import { createSpinner } from '../ui/spinner.js';
import { defaultChatModel, resolveInputFile } from './utils.js';

function summary(prompt: string, result: RunResult<unknown>, audioFile?: string) {
  return {
    prompt,
    text: result.text,
    ...(result.status === 'completed' && result.output !== undefined ? { output: result.output } : {}),
    ...(result.audio && audioFile ? { audio: { file: audioFile, transcript: result.audio.transcript } } : {}),
    status: result.status,
    finishReason: result.finishReason,
    toolCalls: result.steps.flatMap((step) =>
      step.toolResults.map(({ toolName, input, output, status }) => ({ toolName, input, output, status })),
    ),
    sources: result.sources,
    usage: result.usage,
  };
}

/** How many prompts a `runLines` sent, and how many of them failed. */
interface LinesOutcome {
  count: number;
  failed: number;
}

/**
 * Sends prompts one after another in one conversation, for piped stdin, a prompt argument or the demo.
 * A failed line prints its error and the next line goes on: a batch is not lost to one bad prompt.
 */
async function runLines(
  ctx: CommandContext,
  session: ChatSession,
  lines: AsyncIterable<string> | Iterable<string>,
  transcript: boolean,
  approveAll = false,
  flags?: ChatRequestFlags,
): Promise<LinesOutcome> {
  const { stdout, stderr } = ctx.io;
  const style = ctx.style.out;
  // In a transcript (the demo) everything goes to stdout; otherwise stdout gets only the answers.
  const trace = transcript ? stdout : stderr;
  let count = 0;
  let failed = 0;
  // Attachments go with the first message only, as a user attaches a file to the next message.
  let attachments: readonly ContentPart[] = flags?.attachments ?? [];
  for await (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    const slash = runSlashCommand(line, session);
    if (slash.kind === 'exit') break;
    if (slash.kind === 'message') {
      trace.write(`${slash.text}\n`);
      continue;
    }
    count++;
    if (slash.kind === 'error') {
      // Reported like a failed prompt; the lines after it go on.
      failed++;
      const formatted = formatCliError(slash.error, ctx.io.env);
      stderr.write(
        ctx.json ? `${JSON.stringify({ prompt: line, ...formatted.json })}\n` : `${formatted.line}\n`,
      );
      continue;
    }
    if (transcript && !ctx.json) stdout.write(`${style.bold('you › ')}${line}\n`);
    const renderer = createEventRenderer({
      // With --json-schema the answer's text is the JSON itself: printed once, whole, by finishAnswer.
      answer: ctx.json || flags?.output ? nullStream : stdout,
      trace: ctx.json ? nullStream : trace,
      style: transcript ? style : ctx.style.err,
      answerPrefix: transcript ? style.bold('assistant › ') : '',
    });
    const options: SendOptions = {
      onEvent: (event) => renderer.render(event),
      decide: async (item) => {
        if (approveAll) {
          trace.write(`  ${item.toolName} needs approval: approved (the demo approves every call)\n`);
          return true;
        }
        trace.write(`  no one to approve ${item.toolName} in non-interactive mode; rejected\n`);
        return false;
      },
      attachments,
    };
    attachments = [];
    try {
      const result = await (slash.kind === 'retry' ? session.retry(options) : session.send(line, options));
      renderer.end();
      const audioFile = flags ? await finishAnswer(ctx, flags, result, trace) : undefined;
      if (ctx.json) stdout.write(`${JSON.stringify(summary(line, result, audioFile))}\n`);
    } catch (error) {
      renderer.end();
      failed++;
      const formatted = formatCliError(error, ctx.io.env);
      stderr.write(
        ctx.json ? `${JSON.stringify({ prompt: line, ...formatted.json })}\n` : `${formatted.line}\n`,
      );
    }
  }
  return { count, failed };
}

/**
 * What an answer leaves besides its text: the `--audio-out` file, the `--json-schema` output on stdout.
 * Returns the audio file written, if any.
 */
async function finishAnswer(
  ctx: CommandContext,
  flags: ChatRequestFlags,
  result: RunResult<unknown>,
  trace: NodeJS.WritableStream,
): Promise<string | undefined> {
  if (result.status === 'completed' && flags.output && !ctx.json) {
    ctx.io.stdout.write(`${JSON.stringify(result.output, null, 2)}\n`);
  }
  if (!flags.audioOut) return undefined;
  const bytes = await writeAudioOut(flags.audioOut, result.audio, flags.model);
  if (!ctx.json) trace.write(`wrote ${flags.audioOut} (${bytes} bytes of wav)\n`);
  return flags.audioOut;
}

async function* stdinLines(ctx: CommandContext): AsyncIterable<string> {
  const rl = createInterface({ input: ctx.io.stdin, terminal: false });
  try {
    for await (const line of rl) yield line;
  } finally {
    rl.close();
  }
}

/** `svc-agents chat`: the demo agent, interactive on a terminal, one-shot with a prompt, line by line on a pipe. */
export const chatCommand: CommandSpec = {
  path: ['chat'],
  summary: 'chat with an agent that has demo, knowledge-base and file tools (the default of npm start)',
  usage:
    'chat [prompt] [--model <id>] [--kb <name>]... [--image <file|url>] [--audio <file>] [--video <url>] [--audio-out <file.wav> [--voice <name>]] [--plan] [--json-schema <file>]',
  positionals: { min: 0 },
  options: {
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `model id (default ${defaultChatModel})`,
    },
    kb: {
      type: 'string',
      multiple: true,
      valueName: '<name>',
      description:
        'knowledge base (name or id) to search and cite, repeatable (default: all of yours when you have at most 5)',
    },
    prices: {
      type: 'string',
      valueName: '<file>',
      description:
        'JSON prices per model ({"svc-3.5-flash":{"input":0.3,"output":1.2}}): prints each turn\'s cost',
    },
    ...chatRequestOptions,
  },
  details: [
    'Modes:',
    '  on a terminal        interactive chat; /exit, /reset, /model <id>, /help',
    '  with a prompt        one answer, then exit: svc-agents chat "What is 17*23?"',
    '  with piped stdin     one prompt per line, answers on stdout, tool activity on stderr',
    '  with empty stdin     a short scripted demo conversation',
    '',
    'Tools (the same demo agent as serve and worker): get_weather (a fixed demo table), calculate (safe arithmetic),',
    'get_current_time, schedule_reminder, the knowledge-base tools and the file tools (uploads limited to the current directory).',
    'Questions about your documents are answered from your knowledge bases, naming the files used:',
    '  svc-agents kb create office_docs && svc-agents kb add office_docs office-hours.md',
    '  svc-agents chat --kb office_docs "When is the Lisbon office open on Saturday?"',
    '',
    'More examples:',
    '  svc-agents chat "What is in this picture?" --image photo.png',
    '  svc-agents chat "Say good morning" --audio-out answer.wav --voice wenrounansheng',
    '  svc-agents chat "Plan my week" --plan',
    '  svc-agents chat "Extract the contact" --json-schema contact.schema.json',
    '',
    'A piped line that fails prints its error on stderr and the next line goes on; the exit code is 1 then.',
  ].join('\n'),
  async run(ctx, args) {
    // Every flag is checked (files read, parts built) before anything connects.
    const flags = await readChatRequestFlags(args.values, ctx.io.cwd, ctx.io.env);
    const prices = await readPrices(ctx, args.values.prices);
    const { client, emulated } = await connect(ctx);
    const { model } = flags;
    const knowledgeBases = await chooseKnowledgeBases(client, knowledgeBaseFlags(args.values.kb));
    const root = ctx.io.cwd;
    const session = new ChatSession({
      client,
      model,
      createAgent: (chosen) =>
        createDemoAgent({
          client,
          model: chosen,
          root,
          prices,
          knowledgeBases,
          channel: flags.channel,
          modelSettings: flags.modelSettings,
          output: flags.output,
        }),
    });
    const prompt = args.positionals.join(' ').trim();
    if (prompt) {
      const result = await runOneShot(ctx, session, prompt, flags.attachments, flags.output !== undefined);
      const trace = ctx.io.stdout.isTTY && !ctx.json ? ctx.io.stdout : ctx.io.stderr;
      const audioFile = await finishAnswer(ctx, flags, result, trace);
      if (ctx.json) ctx.printJson(summary(prompt, result, audioFile));
      return 0;
    }
    if (ctx.io.stdin.isTTY && ctx.io.stdout.isTTY && !ctx.json) return runRepl(ctx, session);
    const { count, failed } = await runLines(ctx, session, stdinLines(ctx), false, false, flags);
    if (failed > 0) {
      if (!ctx.json) ctx.io.stderr.write(`${failed} of ${count} line(s) failed\n`);
      return 1;
    }
    if (count === 0) {
      if (!ctx.json)
        ctx.io.stdout.write(ctx.style.out.dim('No input on stdin: running the demo conversation.\n'));
      const demo = await prepareDemo(client, emulated);
      const demoSession = new ChatSession({
        client,
        model,
        createAgent: (chosen) => createDemoAgent({ client, model: chosen, root, extraTools: demo.tools }),
      });
      await runLines(ctx, demoSession, demo.prompts, true, true);
    }
    return 0;
  },
};

async function readPrices(ctx: CommandContext, file: unknown): Promise<PriceTable | undefined> {
  if (typeof file !== 'string') return undefined;
  return JSON.parse(await readFile(await resolveInputFile(ctx.io.cwd, file), 'utf8')) as PriceTable;
}

/** One prompt: on a terminal everything shows together (with a spinner); piped, stdout carries the answer alone. */
async function runOneShot(
  ctx: CommandContext,
  session: ChatSession,
  prompt: string,
  attachments: readonly ContentPart[],
  structured: boolean,
): Promise<RunResult<unknown>> {
  const tty = Boolean(ctx.io.stdout.isTTY) && !ctx.json;
  const trace = ctx.json ? nullStream : tty ? ctx.io.stdout : ctx.io.stderr;
  const spinner = createSpinner(tty ? ctx.io.stdout : nullStream);
  const renderer = createEventRenderer({
    // A structured answer's text is its JSON: finishAnswer prints it once, whole.
    answer: ctx.json || structured ? nullStream : ctx.io.stdout,
    trace,
    style: tty ? ctx.style.out : ctx.style.err,
    spinner,
  });
  spinner.start('thinking');
  try {
    return await session.send(prompt, {
      onEvent: (event) => renderer.render(event),
      decide: async (item) => {
        renderer.end();
        trace.write(`  no one to approve ${item.toolName} with a prompt argument; rejected\n`);
        return false;
      },
      attachments,
    });
  } finally {
    renderer.end();
  }
}
