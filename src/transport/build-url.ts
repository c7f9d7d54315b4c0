/** Joins the base URL, a versioned path and the query (leaving out `undefined` values) into one URL string. */
export function buildURL(
  baseURL: string,
  path: string,
  query?: Record<string, string | number | boolean | undefined>,
): string {
  const url = baseURL + (path.startsWith('/') ? path : `/${path}`);
  if (query === undefined) return url;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.append(name, String(value));
  }
  const search = params.toString();
  return search === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${search}`;
}
