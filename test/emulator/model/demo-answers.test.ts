import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('the emulator default model as a demo', () => {
  describe('when the user makes small talk', () => {
    it.each([
      ['Hi!', 'Hello! What can I do for you?'],
      ['Thanks!', "You're welcome! What can I do for you?"],
      ['thank you so much', "You're welcome! What can I do for you?"],
      ['How are you?', "I'm doing well, thanks for asking. What can I do for you?"],
      ['bye', 'Goodbye! Come back any time.'],
    ])('should answer %j briefly instead of echoing it', async (prompt, answer) => {
      const { text } = await new Agent({ client: env.client, model: 'svc-3.5-flash' }).run(prompt);
      expect(text).toBe(answer);
    });

    it('should still echo a request it cannot serve, not treat it as small talk', async () => {
      const { text } = await new Agent({ client: env.client, model: 'svc-3.5-flash' }).run(
        'Thanks, now summarise the quarterly report',
      );
      expect(text).not.toBe("You're welcome! Anything else I can help with?");
    });
  });

  describe("when the README's structured-output example runs", () => {
    const Sentiment = z.object({
      sentiment: z.enum(['positive', 'neutral', 'negative']),
      reason: z.string(),
    });

    it.each(['svc-3.5-flash', 'svc-3.7-flash'])(
      'should read the review as positive on %s (json_schema or JSON mode with the schema in the instructions)',
      async (model) => {
        const classifier = new Agent({ client: env.client, model, output: Sentiment });
        const review = await classifier.run('Review: "Setup took two minutes and it just works."');
        expect(review.status).toBe('completed');
        if (review.status === 'completed') expect(review.output.sentiment).toBe('positive');
        // One request: the first answer already validated, no corrective turn.
        expect(chatRequests(env.emu)).toHaveLength(1);
      },
    );
  });

  describe('when a request says "tomorrow", "at 3pm" and a percentage', () => {
    it('should read them as a date, a time and a number (a fraction when the schema asks for one)', async () => {
      const Booking = z.object({
        when: z.string().describe('date YYYY-MM-DD'),
        time: z.string(),
        discount: z.number().describe('percent'),
        share: z.number().min(0).max(1).describe('fraction of the seats'),
      });
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', output: Booking });
      const result = await agent.run([
        { role: 'system', content: 'Today is 2026-11-25.' },
        { role: 'user', content: 'Meet tomorrow at 3pm, discount 15%, keep 40% of the seats' },
      ]);
      expect(result.status === 'completed' && result.output).toEqual({
        when: '2026-11-26',
        time: '15:00',
        discount: 15,
        share: 0.4,
      });
    });
  });
});
