/** One row of the demo weather table. */
export interface WeatherReport {
  city: string;
  condition: string;
  temperatureC: number;
  humidityPercent: number;
  windKph: number;
}

/** Fixed demo data: the chat demo must work offline and give the same answer every time. */
const table: WeatherReport[] = [
  { city: 'Paris', condition: 'light rain', temperatureC: 14, humidityPercent: 82, windKph: 18 },
  { city: 'London', condition: 'overcast', temperatureC: 12, humidityPercent: 77, windKph: 22 },
  { city: 'Berlin', condition: 'partly cloudy', temperatureC: 11, humidityPercent: 64, windKph: 15 },
  { city: 'Tokyo', condition: 'clear', temperatureC: 21, humidityPercent: 55, windKph: 9 },
  { city: 'New York', condition: 'sunny', temperatureC: 19, humidityPercent: 48, windKph: 13 },
  { city: 'San Francisco', condition: 'fog', temperatureC: 15, humidityPercent: 88, windKph: 24 },
  { city: 'Sydney', condition: 'showers', temperatureC: 23, humidityPercent: 70, windKph: 20 },
  { city: 'Beijing', condition: 'hazy', temperatureC: 17, humidityPercent: 40, windKph: 11 },
  { city: 'Cairo', condition: 'hot and dry', temperatureC: 33, humidityPercent: 18, windKph: 16 },
  { city: 'Reykjavik', condition: 'snow', temperatureC: -2, humidityPercent: 85, windKph: 35 },
];

/** Cities the demo weather tool knows. */
export const knownCities: readonly string[] = table.map((row) => row.city);

/** Looks a city up in the demo table, ignoring case and surrounding spaces; `undefined` when unknown. */
export function lookupWeather(city: string): WeatherReport | undefined {
  const wanted = city.trim().toLowerCase();
  return table.find((row) => row.city.toLowerCase() === wanted);
}
