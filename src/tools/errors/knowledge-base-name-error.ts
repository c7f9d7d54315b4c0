import type { VectorStore } from '../../api/types/vector-stores.js';
import { SvcError } from '../../transport/errors/svc-error.js';

/** Why a knowledge-base name or id could not be used. */
export type KnowledgeBaseNameProblem = 'not-found' | 'ambiguous' | 'taken' | 'unspecified';

/** How many stores an error message lists before it says "and N more". */
const LISTED = 10;

function listStores(stores: readonly VectorStore[]): string {
  const shown = stores.slice(0, LISTED).map((store) => `${store.name} (${store.id})`);
  const more = stores.length > LISTED ? `, and ${stores.length - LISTED} more` : '';
  return `${shown.join(', ')}${more}`;
}

function messageOf(problem: KnowledgeBaseNameProblem, name: string, stores: readonly VectorStore[]): string {
  switch (problem) {
    case 'not-found':
      return stores.length === 0
        ? `no knowledge base with id or name "${name}": the account has none`
        : `no knowledge base with id or name "${name}"; the account has: ${listStores(stores)}`;
    case 'ambiguous':
      return `the name "${name}" matches ${stores.length} knowledge bases: ${listStores(stores)}; use one of the ids`;
    case 'unspecified':
      return stores.length === 0
        ? 'the account has no knowledge bases yet: create one and add files to it first'
        : `the account has ${stores.length} knowledge bases; name the one to use: ${listStores(stores)}`;
    case 'taken':
      return `a knowledge base named "${name}" already exists: ${listStores(stores)}; choose another name, or allow duplicate names`;
  }
}

/**
 * A knowledge base named by the caller or the model is missing, ambiguous (several stores share the name:
 * all of them are listed), not named where the choice is needed or, when creating one, already taken.
 */
export class KnowledgeBaseNameError extends SvcError {
  /** What went wrong. */
  readonly problem: KnowledgeBaseNameProblem;
  /** The name or id asked for (empty when none was: `unspecified`). */
  readonly knowledgeBase: string;
  /** The stores involved: the matches (ambiguous, taken) or the account's stores (not found, unspecified). */
  readonly stores: readonly VectorStore[];

  constructor(options: {
    problem: KnowledgeBaseNameProblem;
    knowledgeBase: string;
    stores: readonly VectorStore[];
  }) {
    super(messageOf(options.problem, options.knowledgeBase, options.stores));
    this.problem = options.problem;
    this.knowledgeBase = options.knowledgeBase;
    this.stores = options.stores;
  }
}
