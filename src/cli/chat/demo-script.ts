/** Prompts of the scripted demo run by `svc-agents chat` when stdin is empty and not a terminal. */
export const demoPrompts: readonly string[] = [
  'What is the weather in Paris?',
  'Calculate 17*23',
  'What time is it?',
];
