import path from 'node:path';
import { PathOutsideRootError } from '../errors.js';

/**
 * Names of files that hold secrets: environment files, private keys and certificates' keys, credential
 * stores of common tools. A path any of whose parts matches is refused by the file tools by default.
 */
export const defaultSecretFilePatterns: readonly RegExp[] = [
  /^\.env(\..*)?$/i, // .env, .env.local, .env.production
  /\.(pem|key|p12|pfx|jks|keystore|asc|gpg|kdbx|ppk)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/i,
  /credential/i, // credentials, credentials.json, .git-credentials
  /(^|[._-])secrets?([._-]|$)/i, // secrets.yaml, client_secret.json
  /^\.(npmrc|pypirc|netrc|pgpass|htpasswd|dockercfg)$/i,
  /^\.(ssh|aws|gnupg|kube|docker|azure|gcloud)$/i, // directories of credentials
  /^(token|tokens|auth)\.json$/i,
];

/** The first part of `relativePath` (a file or a directory on its way) that looks like a secret. */
function secretPart(relativePath: string, patterns: readonly RegExp[]): string | undefined {
  const parts = relativePath.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  return parts.find((part) => patterns.some((pattern) => pattern.test(part)));
}

/**
 * Refuses a file that looks like it holds secrets, by the path the model asked for and by the real path
 * it resolved to (a harmless name may be a link to `.env`): untrusted content (a web page, a document in
 * a knowledge base) must not get a tool to send the app's keys out by itself.
 */
export function refuseSecretFile(
  requested: string,
  resolved: { root: string; real: string } | undefined,
  patterns: readonly RegExp[],
): void {
  const asked = secretPart(requested, patterns);
  const real = resolved && secretPart(path.relative(resolved.root, resolved.real), patterns);
  const part = asked ?? real;
  if (part !== undefined) {
    throw new PathOutsideRootError(
      requested,
      `"${part}" looks like it holds secrets; the file tools do not read such files (their secretFiles option decides)`,
    );
  }
}
