/** Prompts of the scripted demo run by `svc-agents chat` when stdin is empty and not a terminal. */
export const demoPrompts: readonly string[] = [
  'What is the weather in Paris?',
  'What is 17*23?',
  'Thanks! Summarise what you found in one sentence.',
];
