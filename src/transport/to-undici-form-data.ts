import { FormData as UndiciFormData } from 'undici';

/**
 * Copies a FormData (Node's global one or undici's) into the undici copy that `Dispatcher.request`
 * can serialise; Node's global FormData comes from a different undici build and is refused by it.
 * Blob entries are referenced, not copied.
 */
export function toUndiciFormData(form: FormData): UndiciFormData {
  if (form instanceof UndiciFormData) return form;
  const copy = new UndiciFormData();
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') copy.append(name, value);
    else copy.append(name, value, value.name);
  }
  return copy;
}
