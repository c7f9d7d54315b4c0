/** A scripted emulator turn that calls the given tools, each with `{}` unless arguments are given. */
export function toolTurn(...calls: Array<[id: string, name: string, args?: string]>) {
  return {
    message: {
      content: '',
      tool_calls: calls.map(([id, name, args = '{}']) => ({ id, function: { name, arguments: args } })),
    },
  };
}

/** A scripted emulator turn that answers with text. */
export const answer = (content: string) => ({ message: { content } });
