// Preload for a child `node` process (`--import ./test/helpers/hide-packages.mjs`): the packages named in
// HIDE_PACKAGES (comma-separated) cannot be resolved, as for a user who never installed them. Both `import`
// and `import.meta.resolve` go through the hook; the error is Node's own for a missing package.
import { register } from 'node:module';

const hidden = (process.env.HIDE_PACKAGES ?? '').split(',').filter(Boolean);

register(
  `data:text/javascript,${encodeURIComponent(`
const hidden = ${JSON.stringify(hidden)};
export async function resolve(specifier, context, next) {
  const name = hidden.find((pkg) => specifier === pkg || specifier.startsWith(pkg + '/'));
  if (name !== undefined) {
    const error = new Error("Cannot find package '" + name + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}
`)}`,
);
