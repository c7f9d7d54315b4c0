import type { FunctionToolDefinition } from '../../api/types/chat.js';
import { contentWords } from './words.js';

/**
 * The function tools a message is about: those whose name shares a content word with it; when no name does,
 * those whose description does. Names first keeps a shared descriptive word ("current") from calling every tool.
 */
export function matchTools(tools: FunctionToolDefinition[], message: string): FunctionToolDefinition[] {
  const words = new Set(contentWords(message));
  // "What is 17*23?" names no tool, yet a person reads it as a sum: let arithmetic speak for itself.
  if (ARITHMETIC.test(message)) for (const word of ARITHMETIC_WORDS) words.add(word);
  const shares = (text: string) => contentWords(text).some((word) => words.has(word));
  const byName = tools.filter((tool) => shares(tool.function.name));
  if (byName.length > 0) return byName;
  return tools.filter((tool) => shares(tool.function.description ?? ''));
}

const ARITHMETIC = /\d\s*[-+*/×÷^%]\s*[(\d]/;
const ARITHMETIC_WORDS = contentWords('calculate calculator arithmetic math expression compute');
