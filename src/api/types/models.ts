import type { ListResponse } from './lists.js';

/** A model the service offers. */
export interface Model {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** Response of `GET /v1/models`. */
export type ModelList = ListResponse<Model>;
