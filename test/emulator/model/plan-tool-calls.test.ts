import { describe, expect, it } from 'vitest';
import type { FunctionToolDefinition } from '../../../src/api/types/chat.js';
import { planToolCalls } from '../../../src/emulator/model/plan-tool-calls.js';

function tool(
  name: string,
  description: string,
  properties: Record<string, Record<string, unknown>>,
  required: string[] = Object.keys(properties),
): FunctionToolDefinition {
  return {
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required } },
  };
}

// A realistic tool belt, like the ones newcomers give an agent first.
const tools: FunctionToolDefinition[] = [
  tool('get_weather', 'Get the current weather (condition, temperature, wind) in a city.', {
    city: { type: 'string', description: 'City name, e.g. Paris' },
  }),
  tool(
    'get_current_time',
    'Get the current date and time, optionally in an IANA time zone such as Europe/Paris.',
    { timeZone: { type: 'string', description: 'IANA time zone, e.g. Europe/Paris; UTC when omitted' } },
    [],
  ),
  tool('calculate', 'A calculator: the value of an arithmetic expression, e.g. 17*23.', {
    expression: { type: 'string', description: 'The arithmetic expression, e.g. 17*23' },
  }),
  tool('convert_currency', 'Convert money between currencies.', {
    amount: { type: 'number' },
    from: { type: 'string', enum: ['USD', 'EUR', 'GBP', 'JPY'] },
    to: { type: 'string', enum: ['USD', 'EUR', 'GBP', 'JPY'] },
  }),
  tool('send_email', 'Send an email message to someone.', {
    to: { type: 'string', format: 'email', description: 'Recipient address' },
    subject: { type: 'string' },
  }),
  tool('create_event', 'Put an event in the calendar.', {
    title: { type: 'string', description: 'Short title' },
    date: { type: 'string', format: 'date' },
    time: { type: 'string', description: 'Start time, HH:MM' },
  }),
  tool('get_order_status', 'Shipping status of a customer order.', {
    order_id: { type: 'string', description: 'Order id, e.g. ORD-1234' },
  }),
  tool(
    'set_thermostat',
    'Set the heating thermostat to a temperature.',
    {
      temperature: { type: 'number', minimum: 5, maximum: 30 },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    ['temperature'],
  ),
  tool('search_docs', 'Search the product documentation.', {
    query: { type: 'string', description: 'What to look for' },
  }),
  tool(
    'list_tasks',
    'List the to-do tasks, optionally only open or done ones.',
    {
      status: { type: 'string', enum: ['open', 'done'] },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
    },
    [],
  ),
  tool('upload_file', 'Upload a local file to the service.', {
    path: { type: 'string', description: 'Path of the file, relative to the working directory' },
    purpose: { type: 'string', enum: ['file-extract', 'retrieval-text', 'retrieval-image', 'storage'] },
  }),
  tool('remove_file_from_knowledge_base', 'Remove a file from a knowledge base.', {
    knowledge_base_id: { type: 'string' },
    file_id: { type: 'string' },
  }),
];

type Call = [name: string, args: Record<string, unknown>];

/** Prompt, then the calls expected in order ([] for none). */
const table: Array<[prompt: string, calls: Call[]]> = [
  // One tool, plain.
  ['What is the weather in Paris?', [['get_weather', { city: 'Paris' }]]],
  ['weather in Lisbon', [['get_weather', { city: 'Lisbon' }]]],
  ["How's the weather looking in New York today?", [['get_weather', { city: 'New York' }]]],
  ['Is it raining in San Francisco? Check the weather please', [['get_weather', { city: 'San Francisco' }]]],
  ['Calculate 17*23', [['calculate', { expression: '17*23' }]]],
  ['What time is it?', [['get_current_time', {}]]],
  ['What time is it in Tokyo?', [['get_current_time', { timeZone: 'Asia/Tokyo' }]]],
  ['current time in Europe/Berlin', [['get_current_time', { timeZone: 'Europe/Berlin' }]]],
  // Several tools, and one tool several times.
  [
    "What's the weather in Paris, and how much is 2+2*3?",
    [
      ['get_weather', { city: 'Paris' }],
      ['calculate', { expression: '2+2*3' }],
    ],
  ],
  [
    'Compare the weather in London and Berlin',
    [
      ['get_weather', { city: 'London' }],
      ['get_weather', { city: 'Berlin' }],
    ],
  ],
  [
    'weather in paris and tokyo',
    [
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Tokyo' }],
    ],
  ],
  [
    'Weather in Rio de Janeiro, São Paulo and Lima please',
    [
      ['get_weather', { city: 'Rio de Janeiro' }],
      ['get_weather', { city: 'São Paulo' }],
      ['get_weather', { city: 'Lima' }],
    ],
  ],
  [
    'What is the weather in Tokyo and what time is it there?',
    [
      ['get_weather', { city: 'Tokyo' }],
      ['get_current_time', { timeZone: 'Asia/Tokyo' }],
    ],
  ],
  [
    'weather and time for Sydney',
    [
      ['get_weather', { city: 'Sydney' }],
      ['get_current_time', { timeZone: 'Australia/Sydney' }],
    ],
  ],
  [
    'what is 2+2 and 3*5?',
    [
      ['calculate', { expression: '2+2' }],
      ['calculate', { expression: '3*5' }],
    ],
  ],
  // Arithmetic in its many spellings.
  ['what is 17% of 250?', [['calculate', { expression: '17/100*250' }]]],
  ['What is 12 times 7?', [['calculate', { expression: '12*7' }]]],
  ['100 divided by 4', [['calculate', { expression: '100/4' }]]],
  ['square root of 144 plus 1', [['calculate', { expression: 'sqrt(144)+1' }]]],
  ['how much is (2+3)^2/4', [['calculate', { expression: '(2+3)^2/4' }]]],
  ['2 to the power of 10', [['calculate', { expression: '2^10' }]]],
  ["what's 1,250 minus 300", [['calculate', { expression: '1250-300' }]]],
  ['compute -3 + 5', [['calculate', { expression: '-3+5' }]]],
  ['15 percent of 80', [['calculate', { expression: '15/100*80' }]]],
  ["What's a 15% tip on 84 dollars?", [['calculate', { expression: '15/100*84' }]]],
  // Typos and other languages' city names.
  ['How is the waether in Sydney?', [['get_weather', { city: 'Sydney' }]]],
  ['wether in Cairo', [['get_weather', { city: 'Cairo' }]]],
  ['calcualte 6*7', [['calculate', { expression: '6*7' }]]],
  ["What's the weather in München?", [['get_weather', { city: 'München' }]]],
  [
    'weather for Zürich and Köln',
    [
      ['get_weather', { city: 'Zürich' }],
      ['get_weather', { city: 'Köln' }],
    ],
  ],
  ['Quel temps fait-il à Paris? weather', [['get_weather', { city: 'Paris' }]]],
  ['weather in Londres', [['get_weather', { city: 'Londres' }]]],
  // Enums, numbers, dates, times, emails, ids.
  ['Convert 250 EUR to USD', [['convert_currency', { amount: 250, from: 'EUR', to: 'USD' }]]],
  ['convert 99.5 usd into jpy', [['convert_currency', { amount: 99.5, from: 'USD', to: 'JPY' }]]],
  ['Set the thermostat to 21 celsius', [['set_thermostat', { temperature: 21, unit: 'celsius' }]]],
  ['set thermostat to 50', [['set_thermostat', { temperature: 30 }]]],
  [
    'Send an email to ada@example.com with subject "Quarterly report"',
    [['send_email', { to: 'ada@example.com', subject: 'Quarterly report' }]],
  ],
  [
    'Create an event "Team lunch" on March 14 at 12:30',
    [['create_event', { title: 'Team lunch', date: '2026-03-14', time: '12:30' }]],
  ],
  [
    'create event "Dentist" tomorrow at 3pm',
    [['create_event', { title: 'Dentist', date: '2026-03-11', time: '15:00' }]],
  ],
  ['Where is my order ORD-5521?', [['get_order_status', { order_id: 'ORD-5521' }]]],
  [
    'status of orders ORD-1 and ORD-2',
    [
      ['get_order_status', { order_id: 'ORD-1' }],
      ['get_order_status', { order_id: 'ORD-2' }],
    ],
  ],
  ['search the docs for rate limits', [['search_docs', { query: 'rate limits' }]]],
  ['list my open tasks', [['list_tasks', { status: 'open' }]]],
  ['list tasks, limit 5', [['list_tasks', { limit: 5 }]]],
  [
    'Upload notes.md to the knowledge base',
    [['upload_file', { path: 'notes.md', purpose: 'retrieval-text' }]],
  ],
  ['upload ./docs/guide.pdf', [['upload_file', { path: './docs/guide.pdf', purpose: 'file-extract' }]]],
  [
    'Remove file-abc from knowledge base 1234',
    [['remove_file_from_knowledge_base', { knowledge_base_id: '1234', file_id: 'file-abc' }]],
  ],
  // Nothing to call, or not enough to call with.
  ['Hello!', []],
  ['Tell me a story about 2024', []],
  ['Thanks, that helps', []],
  ["What's the weather like?", []],
  ['Who wrote Hamlet?', []],
];

describe('planToolCalls', () => {
  it('should cover at least 40 prompts', () => {
    expect(table.length).toBeGreaterThanOrEqual(40);
  });

  it.each(table)('%s', (prompt, expected) => {
    const plan = planToolCalls(tools, prompt, '2026-03-10');
    expect(plan.calls.map((call) => [call.tool.function.name, call.arguments])).toEqual(expected);
  });

  describe('when a required value is missing', () => {
    it('should ask for it instead of calling with a made-up value', () => {
      const plan = planToolCalls(tools, "What's the weather like?", '2026-03-10');
      expect(plan.calls).toEqual([]);
      expect(plan.question).toMatch(/^Which city \(or place\) do you mean\? .*get_weather/);
    });
  });

  describe('when filling a free-text place', () => {
    it('should never use the first word of the sentence or a stop word', () => {
      for (const prompt of ['Compare the weather in London and Berlin', "What's the weather in Paris?"]) {
        const cities = planToolCalls(tools, prompt).calls.map((c) => c.arguments.city);
        expect(cities).not.toContain('Compare');
        expect(cities).not.toContain("What's");
      }
    });
  });

  describe('when filling a free-text parameter', () => {
    const reminder = tool('schedule_reminder', 'Schedule a reminder for the user.', {
      text: { type: 'string', description: 'What to remind the user of' },
    });
    const slowSearch = tool('slow_search', 'A slow search through the archive', {
      topic: { type: 'string' },
    });
    const messenger = tool('send_message', 'Send a message to a contact.', { text: { type: 'string' } });

    it('should leave out the phrase that only names the tool', () => {
      const plan = (prompt: string) => planToolCalls([reminder, slowSearch, messenger], prompt).calls;
      expect(plan('Schedule a reminder to water the plants')).toEqual([
        { tool: reminder, arguments: { text: 'water the plants' } },
      ]);
      expect(plan('Run the slow search about comets')).toEqual([
        { tool: slowSearch, arguments: { topic: 'comets' } },
      ]);
      // A name after "to" is the recipient, not the phrase naming the tool.
      expect(plan('Send a message to Bob saying I am late')[0]?.arguments.text).toBe(
        'Send a message to Bob saying I am late',
      );
    });
  });
});
