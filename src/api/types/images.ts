/** Sizes `images.generate` accepts. */
export type ImageSize = '256x256' | '512x512' | '768x768' | '1024x1024' | '1280x800' | '800x1280';

/** Body of `POST /v1/images/generations`. */
export interface ImageGenerateParams {
  model: 'svc-1x-medium' | (string & {});
  /** At most 1024 characters. */
  prompt: string;
  /** @default '1024x1024' */
  size?: ImageSize;
  /** Only 1. */
  n?: 1;
  /** @default 'url' */
  response_format?: 'url' | 'b64_json';
  /** Omitted or 0 means a system-generated seed. */
  seed?: number;
  /** 1 to 100. @default 50 */
  steps?: number;
  /** 1 to 10. @default 7.5 */
  cfg_scale?: number;
  /** A png or jpeg (URL or data URI, up to 10 MB) to imitate; `weight` in (0, 2]. */
  style_reference?: { source_url: string; weight?: number };
}

/** One generated image. */
export interface GeneratedImage {
  seed: number;
  finish_reason: 'success' | 'content_filtered' | (string & {});
  /** Base64 image when `response_format` is `b64_json`. */
  image?: string;
  /** Download link when `response_format` is `url`. */
  url?: string;
}

/** Response of `POST /v1/images/generations`. */
export interface ImageGeneration {
  created: number;
  data: GeneratedImage[];
}
