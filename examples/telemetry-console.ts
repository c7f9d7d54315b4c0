/**
 * OpenTelemetry traces of an agent run, printed to the console: one `invoke_agent` span per run, a `chat`
 * span per model request and an `execute_tool` span per tool call, with the GenAI semantic-convention
 * attributes. Swap the ConsoleSpanExporter for an OTLP exporter to send them to any collector.
 * Run: npx tsx examples/telemetry-console.ts
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { Agent, defineTool } from '../src/index.js';
import { openTelemetry } from '../src/telemetry/index.js';
import { connect } from './support/connect.js';

// Register a tracer provider once at start-up; without one, openTelemetry() records nothing.
const provider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
});
trace.setGlobalTracerProvider(provider);

const { client, close } = await connect();

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: 14, sky: 'light rain' }),
});

const agent = new Agent({
  client,
  model: 'svc-3.5-flash',
  instructions: 'Answer briefly.',
  tools: [getWeather],
  // recordContents: true would add messages, tool arguments and results to the spans.
  instrumentation: openTelemetry({ agentName: 'weather-bot' }),
});

const result = await agent.run('What is the weather in Paris?');
console.log(`answer: ${result.text}`);
await provider.shutdown();
await close();
