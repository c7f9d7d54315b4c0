import { PagePromise } from '../pagination/page-promise.js';
import type { CursorPageResponse } from '../types/lists.js';
import type { RequestOptions } from '../types/request-options.js';
import type { Voice, VoiceCreated, VoiceCreateParams, VoiceListParams } from '../types/voices.js';
import { validateRequest } from './request-validators.js';
import { type ResourceContext, withOptions } from './resource-context.js';

/** `client.audio.voices`: voice cloning. */
export class Voices {
  readonly #context: ResourceContext;

  constructor(context: ResourceContext) {
    this.#context = context;
  }

  /** Clones a voice from a `storage` upload of 5-10 s of audio (`POST /v1/audio/voices`). */
  async create(params: VoiceCreateParams, options?: RequestOptions): Promise<VoiceCreated> {
    if (this.#context.validate) await validateRequest.voiceCreate(params);
    return this.#context.transport.request<VoiceCreated>(
      withOptions({ method: 'POST', path: '/v1/audio/voices', body: params }, options),
    );
  }

  /** Lists the cloned voices, page by page (`GET /v1/audio/voices`). */
  list(query: VoiceListParams = {}, options?: RequestOptions): PagePromise<Voice> {
    return new PagePromise(query, async (pageQuery) => {
      if (this.#context.validate) await validateRequest.listQuery(pageQuery, 'audio.voices.list');
      return this.#context.transport.request<CursorPageResponse<Voice>>(
        withOptions({ method: 'GET', path: '/v1/audio/voices', query: { ...pageQuery } }, options),
      );
    });
  }
}

/** `client.audio`. */
export class Audio {
  /** Voice cloning and listing. */
  readonly voices: Voices;

  constructor(context: ResourceContext) {
    this.voices = new Voices(context);
  }
}
