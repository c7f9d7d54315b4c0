import { PartInputError } from '../errors.js';
import type { ContentPart } from '../types/chat.js';
import { isHttpUrl } from './read-part-bytes.js';

/** A `video_url` content part. */
export type VideoPart = Extract<ContentPart, { type: 'video_url' }>;

/**
 * Builds a `video_url` part from an http(s) address of an mp4 video (under 128 MB). Any such address is
 * taken: the path need not end in `.mp4`, as signed and streaming URLs often do not.
 */
export function videoPart(url: string): VideoPart {
  if (typeof url !== 'string' || !isHttpUrl(url)) {
    throw new PartInputError({
      field: 'videoPart',
      rule: 'the video must be an http or https URL (the service fetches it itself)',
    });
  }
  return { type: 'video_url', video_url: { url } };
}
