import type { FormData as UndiciFormData } from 'undici';

/** Joins the base path, a versioned path and the query (leaving out `undefined` values) into one URL path. */
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

/**
 * Copies a FormData (Node's global one or undici's) into the undici copy that `Dispatcher.dispatch`
 * can serialise; Node's global FormData comes from a different undici build and is refused by it.
 * Blob entries are referenced, not copied. The class is passed in because undici is loaded lazily.
 */
export function toUndiciFormData(form: FormData, UndiciFormDataClass: typeof UndiciFormData): UndiciFormData {
  if (form instanceof UndiciFormDataClass) return form;
  const copy = new UndiciFormDataClass();
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') copy.append(name, value);
    else copy.append(name, value, value.name);
  }
  return copy;
}

/** First value of a response header. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A copy of `headers` with lower-cased names. */
export function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}
