/** Turns a tool's return value into `tool` message text: strings as is, `undefined` as '', else JSON. */
export function formatToolOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    const json = JSON.stringify(output, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    // JSON.stringify answers undefined for functions and symbols.
    return json ?? String(output);
  } catch {
    return String(output);
  }
}
