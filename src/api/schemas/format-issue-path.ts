const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Formats a validation path as `a.b[0].c`; keys that are not identifiers become `["my-key"]`; `request` for the root. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && identifier.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === '' ? 'request' : out;
}
