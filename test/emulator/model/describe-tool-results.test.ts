import { describe, expect, it } from 'vitest';
import { describeToolResults } from '../../../src/emulator/model/describe-tool-results.js';

describe('describeToolResults', () => {
  it('should say a sentence per call with values and units', () => {
    const text = describeToolResults([
      {
        name: 'get_weather',
        arguments: { city: 'Paris' },
        content: JSON.stringify({
          city: 'Paris',
          condition: 'light rain',
          temperatureC: 14,
          humidityPercent: 82,
          windKph: 18,
        }),
      },
      {
        name: 'calculate',
        arguments: { expression: '17*23' },
        content: '{"expression":"17*23","result":391}',
      },
    ]);
    expect(text).toBe(
      'The weather in Paris: light rain, temperature 14 °C, humidity 82%, wind 18 km/h. 17*23 = 391.',
    );
  });

  it('should read a clock result as its local time', () => {
    const content = JSON.stringify({
      iso: '2026-01-01T09:00:00Z',
      timeZone: 'UTC',
      local: 'Thursday 1 January 2026, 09:00 UTC',
    });
    expect(describeToolResults([{ name: 'get_current_time', arguments: {}, content }])).toBe(
      'The current time: Thursday 1 January 2026, 09:00 UTC.',
    );
  });

  it('should say plainly when a tool failed and why', () => {
    const text = describeToolResults([
      {
        name: 'get_weather',
        arguments: { city: 'Atlantis' },
        content: 'Error in get_weather: no weather data for "Atlantis"; known cities: Paris',
      },
      {
        name: 'refund_order',
        arguments: { orderId: 7 },
        content: 'Error in refund_order: order 7 is closed',
      },
    ]);
    expect(text).toBe(
      'I could not get the weather in Atlantis: no weather data for "Atlantis"; known cities: Paris. ' +
        'refund_order (7) failed: order 7 is closed.',
    );
  });

  it('should report a rejected call with its reason, and lists by their names', () => {
    expect(
      describeToolResults([
        {
          name: 'delete_file',
          arguments: { file_id: 'file-1' },
          content: 'The user rejected this call of delete_file; it was not run. Reason: keep it',
        },
        {
          name: 'list_files',
          arguments: {},
          content: '[{"id":"file-1","filename":"a.md"},{"id":"file-2","filename":"b.md"}]',
        },
      ]),
    ).toBe('I did not run delete_file: it was rejected (keep it). list_files: 2 found (a.md, b.md).');
  });
});
