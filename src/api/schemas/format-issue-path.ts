const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The one format of a validation path, for every issue a caller or the model reads (request rules, tool
 * arguments, structured output, saved state): `items[0].name`; keys that are not identifiers become
 * `["my-key"]`; the empty path is `root` (`request` for a request body).
 */
export function formatIssuePath(path: readonly PropertyKey[], root = 'request'): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && identifier.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === '' ? root : out;
}
