import { ListPromise } from '../pagination/list-promise.js';
import type { Model, ModelList } from '../types/models.js';
import type { RequestOptions } from '../types/request-options.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, segment, withOptions } from './resource-context.js';

/** `client.models`. */
export class Models {
  readonly #context: ResourceContext;

  constructor(context: ResourceContext) {
    this.#context = context;
  }

  /** Lists the models (`GET /v1/models`): `await` it for `{ object, data }`, or `for await` over the models. */
  list(options?: RequestOptions): ListPromise<Model> {
    return new ListPromise(() =>
      this.#context.transport.request<ModelList>(withOptions({ method: 'GET', path: '/v1/models' }, options)),
    );
  }

  /** Gets one model by name (`GET /v1/models/{model}`). */
  async retrieve(model: string, options?: RequestOptions): Promise<Model> {
    if (this.#context.validate) validateRequest.id('model', model, 'models.retrieve');
    return this.#context.transport.request<Model>(
      withOptions({ method: 'GET', path: `/v1/models/${segment(model)}` }, options),
    );
  }
}
