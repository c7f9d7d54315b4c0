/**
 * A small MCP server for the examples, written with the MCP SDK's server API: team notes to search,
 * and a destructive tool to erase one. It speaks MCP over stdin/stdout; notices go to stderr.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const notes = new Map([
  ['n1', 'Refunds: orders can be refunded within 30 days; over 100 euros a manager approves.'],
  ['n2', 'Invoices are sent on the 1st of each month; duplicates can be re-sent from the billing page.'],
  ['n3', 'Password resets: the link in the email is valid for 1 hour.'],
]);

const server = new McpServer({ name: 'team-notes', version: '1.0.0' });
server.registerTool(
  'search_notes',
  {
    description: 'Search the team notes for a word; answers the matching notes with their ids.',
    inputSchema: { query: z.string().describe('A word to look for, e.g. "refund"') },
    annotations: { readOnlyHint: true },
  },
  async ({ query }) => {
    const words = query
      .toLowerCase()
      .split(/\W+/)
      .filter((word) => word.length > 3);
    const hits = [...notes].filter(([, text]) =>
      words.some((word) => text.toLowerCase().includes(word.slice(0, 5))),
    );
    const found = hits.length > 0 ? hits : [...notes];
    return { content: [{ type: 'text', text: found.map(([id, text]) => `${id}: ${text}`).join('\n') }] };
  },
);
server.registerTool(
  'erase_memo',
  {
    description: 'Erase a note by id. Cannot be undone.',
    inputSchema: { id: z.string().describe('Id of the note, e.g. "n1"') },
    annotations: { destructiveHint: true },
  },
  async ({ id }) => {
    const existed = notes.delete(id);
    return existed
      ? { content: [{ type: 'text', text: `erased ${id}` }] }
      : { content: [{ type: 'text', text: `no note ${id}` }], isError: true };
  },
);
await server.connect(new StdioServerTransport());
console.error('team-notes MCP server ready on stdio');
