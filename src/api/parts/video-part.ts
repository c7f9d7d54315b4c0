import type { ContentPart } from '../types/chat.js';
import { PartInputError } from './part-input-error.js';
import { isHttpUrl } from './read-part-bytes.js';

/** A `video_url` content part. */
export type VideoPart = Extract<ContentPart, { type: 'video_url' }>;

/** Builds a `video_url` part; the service takes only http(s) addresses of mp4 videos under 128 MB. */
export function videoPart(url: string): VideoPart {
  if (typeof url !== 'string' || !isHttpUrl(url)) {
    throw new PartInputError(
      'videoPart',
      'the video must be an http or https URL (the service fetches it itself)',
    );
  }
  if (!isMp4Url(url)) {
    throw new PartInputError('videoPart', 'the video must be an mp4 file (a URL path ending in .mp4)');
  }
  return { type: 'video_url', video_url: { url } };
}

/** True when a URL's path names an mp4 file (`.../clip.mp4`, query and fragment ignored). */
export function isMp4Url(url: string): boolean {
  try {
    return new URL(url).pathname.toLowerCase().endsWith('.mp4');
  } catch {
    return false;
  }
}
