import type { ImageGenerateParams, ImageGeneration } from '../types/images.js';
import type { RequestOptions } from '../types/request-options.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, withOptions } from './resource-context.js';

/** `client.images`. */
export class Images {
  readonly #context: ResourceContext;

  constructor(context: ResourceContext) {
    this.#context = context;
  }

  /** Generates one image from a prompt (`POST /v1/images/generations`). */
  async generate(params: ImageGenerateParams, options?: RequestOptions): Promise<ImageGeneration> {
    if (this.#context.validate) await validateRequest.imageGenerate(params);
    return this.#context.transport.request<ImageGeneration>(
      withOptions({ method: 'POST', path: '/v1/images/generations', body: params }, options),
    );
  }
}
