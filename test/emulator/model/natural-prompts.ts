// Forty natural prompts for the emulator's demo model, written before the model's code was changed and
// not tuned one by one afterwards. Each carries its own judgement: what a user of the demo would accept.

/** A function tool in the shape the service takes. */
export interface PromptTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** What a tool-calling prompt must produce: these calls (arguments compared loosely), and no others. */
export interface ExpectedCall {
  name: string;
  args: Record<string, string | number | boolean>;
}

/** One prompt and its judgement. */
export interface NaturalPrompt {
  prompt: string;
  tools?: PromptTool[];
  /** `json_object` answers must be JSON. */
  json?: boolean;
  /** A tiny red PNG goes with the text (vision model). */
  image?: boolean;
  /**
   * The calls the answer must make (exactly these, in any order). A string argument matches when it
   * contains the expected text and is at most 8 characters longer (`Asia/Tokyo` for `Tokyo`, `bananas`
   * for `banana`, not `Do we have bananas in stock`).
   */
  calls?: ExpectedCall[];
  /** For text answers: a pattern the answer must match. */
  answer?: RegExp;
}

const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[]) =>
  ({
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required } },
  }) as const satisfies PromptTool;
const str = (description: string) => ({ type: 'string', description });

const weather = fn('get_weather', 'Current weather for a city', { city: str('City name') }, ['city']);
const currency = fn(
  'convert_currency',
  'Converts an amount between two currencies',
  {
    from: str('ISO code of the currency to convert from'),
    to: str('ISO code of the currency to convert to'),
    amount: { type: 'number', description: 'Amount in the source currency' },
  },
  ['from', 'to', 'amount'],
);
const flag = fn(
  'set_feature_flag',
  'Turns a feature flag on or off',
  { flag: str('Name of the feature flag'), enabled: { type: 'boolean', description: 'On or off' } },
  ['flag', 'enabled'],
);
const order = fn(
  'create_order',
  'Places an order for a product (charges the customer)',
  { product: str('Product to order'), quantity: { type: 'integer', description: 'How many', minimum: 1 } },
  ['product', 'quantity'],
);
const stock = fn('check_stock', 'Checks whether a product is in stock', { product: str('Product name') }, [
  'product',
]);
const ship = fn(
  'ship_order',
  'Ships the order to an address',
  { street: str('Street and house number'), city: str('City') },
  ['street', 'city'],
);
const link = fn(
  'link_accounts',
  'Links a secondary account to a primary account',
  {
    primary_id: { type: 'string', format: 'uuid', description: 'The primary account' },
    secondary_id: { type: 'string', format: 'uuid', description: 'The account linked to it' },
  },
  ['primary_id', 'secondary_id'],
);
const kbSearch = fn(
  'search_knowledge_base',
  'Searches a knowledge base',
  { knowledge_base: str('Name of the knowledge base'), query: str('What to look for') },
  ['knowledge_base', 'query'],
);
const email = fn(
  'send_email',
  'Sends an email',
  { to: { type: 'string', format: 'email' }, subject: str('Subject line'), body: str('Message body') },
  ['to', 'subject'],
);
const meeting = fn(
  'schedule_meeting',
  'Schedules a meeting today',
  {
    title: str('Meeting title'),
    start_time: { type: 'string', pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM' },
  },
  ['title', 'start_time'],
);
const user = fn(
  'lookup_user',
  'Looks up a user by id',
  { user_id: { type: 'integer', description: 'User id' } },
  ['user_id'],
);
const ticket = fn(
  'create_ticket',
  'Opens a support ticket',
  { title: str('Short summary'), priority: { type: 'string', enum: ['low', 'medium', 'high'] } },
  ['title', 'priority'],
);
const remove = fn('delete_record', 'Deletes a record by id', { record_id: { type: 'integer' } }, [
  'record_id',
]);
const clock = fn(
  'get_time',
  'Current time in a time zone',
  { timezone: str('IANA time zone, e.g. Europe/Paris') },
  ['timezone'],
);

/** An honest answer to what the demo cannot do: it says it is the emulator and what it can do. */
const HONEST = /emulator|demo/i;

/** The forty prompts. */
export const NATURAL_PROMPTS: NaturalPrompt[] = [
  // Small talk, by intent rather than exact phrase.
  { prompt: 'Hello! How are you?', answer: /hello|hi\b|doing well/i },
  { prompt: 'hey there, good morning', answer: /hello|hi\b|morning/i },
  { prompt: 'Thanks, that was helpful!', answer: /welcome|glad/i },
  { prompt: 'Cheers, I appreciate it', answer: /welcome|glad/i },
  { prompt: 'See you tomorrow!', answer: /bye|see you|later/i },
  { prompt: 'Who are you?', answer: /emulator/i },
  { prompt: 'What can you do?', answer: /tool|knowledge base|arithmetic|calculat/i },
  // What a demo model cannot know: a short honest answer, never an echo.
  { prompt: 'Tell me a joke', answer: HONEST },
  { prompt: "What's the capital of Australia?", answer: /canberra|emulator|demo/i },
  { prompt: 'Write a haiku about autumn leaves', answer: HONEST },
  { prompt: 'Who won the 1998 World Cup?', answer: /france|emulator|demo/i },
  { prompt: 'Explain quantum entanglement in simple terms', answer: HONEST },
  { prompt: "Translate 'good night' into French", answer: /bonne nuit|emulator|demo/i },
  { prompt: 'Can you recommend a good book?', answer: HONEST },
  // Arithmetic in plain words.
  { prompt: 'What is 17*23?', answer: /\b391\b/ },
  { prompt: 'How much is 15% of 80?', answer: /\b12\b/ },
  { prompt: "What's 2 to the power of 10?", answer: /\b1,?024\b/ },
  // JSON mode and an image.
  { prompt: 'Say hello in JSON', json: true },
  { prompt: 'Give me a JSON object with a greeting and your name', json: true },
  { prompt: 'What is in this picture?', image: true, answer: /image|picture|red/i },
  // Tool calls: arguments bound to the words that name them.
  {
    prompt: "What's the weather like in Lisbon right now?",
    tools: [weather],
    calls: [{ name: 'get_weather', args: { city: 'Lisbon' } }],
  },
  {
    prompt: 'Is it raining in São Paulo?',
    tools: [weather],
    calls: [{ name: 'get_weather', args: { city: 'São Paulo' } }],
  },
  {
    prompt: 'Weather for Paris and Rome please',
    tools: [weather],
    calls: [
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: 'Rome' } },
    ],
  },
  {
    prompt: 'Convert 100 USD to EUR',
    tools: [currency],
    calls: [{ name: 'convert_currency', args: { from: 'USD', to: 'EUR', amount: 100 } }],
  },
  {
    prompt: 'How many euros is 50 GBP?',
    tools: [currency],
    calls: [{ name: 'convert_currency', args: { from: 'GBP', to: 'EUR', amount: 50 } }],
  },
  {
    prompt: 'Change 20 USD into JPY',
    tools: [currency],
    calls: [{ name: 'convert_currency', args: { from: 'USD', to: 'JPY', amount: 20 } }],
  },
  {
    prompt: 'Enable dark_mode',
    tools: [flag],
    calls: [{ name: 'set_feature_flag', args: { flag: 'dark_mode', enabled: true } }],
  },
  {
    prompt: 'Please turn off the beta_search flag',
    tools: [flag],
    calls: [{ name: 'set_feature_flag', args: { flag: 'beta_search', enabled: false } }],
  },
  {
    prompt: 'Order 3 bananas',
    tools: [order, stock],
    calls: [{ name: 'create_order', args: { product: 'banana', quantity: 3 } }],
  },
  {
    prompt: 'Do we have bananas in stock?',
    tools: [order, stock],
    calls: [{ name: 'check_stock', args: { product: 'banana' } }],
  },
  {
    prompt: 'Ship it to 221B Baker Street, London',
    tools: [ship],
    calls: [{ name: 'ship_order', args: { street: '221B Baker Street', city: 'London' } }],
  },
  {
    prompt:
      'Link 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d as the secondary account of primary account 3f2b8c1e-1d2a-4c5b-9e8f-0a1b2c3d4e5f',
    tools: [link],
    calls: [
      {
        name: 'link_accounts',
        args: {
          primary_id: '3f2b8c1e-1d2a-4c5b-9e8f-0a1b2c3d4e5f',
          secondary_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        },
      },
    ],
  },
  {
    prompt: 'Search the zephyr_docs knowledge base for install steps',
    tools: [kbSearch],
    calls: [{ name: 'search_knowledge_base', args: { knowledge_base: 'zephyr_docs' } }],
  },
  {
    prompt: "Email bob@example.com with the subject 'Quarterly report' saying the numbers are in",
    tools: [email],
    calls: [{ name: 'send_email', args: { to: 'bob@example.com', subject: 'Quarterly report' } }],
  },
  {
    prompt: "Schedule 'Design review' at 15:30",
    tools: [meeting],
    calls: [{ name: 'schedule_meeting', args: { title: 'Design review', start_time: '15:30' } }],
  },
  { prompt: 'Look up user 4821', tools: [user], calls: [{ name: 'lookup_user', args: { user_id: 4821 } }] },
  {
    prompt: 'Open a high priority ticket: the login page is down',
    tools: [ticket],
    calls: [{ name: 'create_ticket', args: { priority: 'high' } }],
  },
  {
    prompt: 'Delete records 17 and 18',
    tools: [remove],
    calls: [
      { name: 'delete_record', args: { record_id: 17 } },
      { name: 'delete_record', args: { record_id: 18 } },
    ],
  },
  {
    prompt: 'Order 2 pizzas. Yes, order 2 pizzas please.',
    tools: [order],
    calls: [{ name: 'create_order', args: { product: 'pizza', quantity: 2 } }],
  },
  {
    prompt: 'What time is it in Tokyo?',
    tools: [clock],
    calls: [{ name: 'get_time', args: { timezone: 'Tokyo' } }],
  },
];
