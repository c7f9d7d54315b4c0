/** Turns a tool's return value into `tool` message text: strings as is, `undefined` as '', else JSON. */
export function formatToolOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  let json: string | undefined;
  try {
    // A replacer function makes V8 call back into JS for every key: use it only when plain JSON throws.
    json = JSON.stringify(output);
  } catch {
    try {
      json = JSON.stringify(output, (_key, value: unknown) =>
        typeof value === 'bigint' ? value.toString() : value,
      );
    } catch {
      return String(output);
    }
  }
  // JSON.stringify answers undefined for functions and symbols.
  return json ?? String(output);
}
