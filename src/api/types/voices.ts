import type { CursorPageQuery } from './lists.js';

/** Models that clone voices. */
export type VoiceModel = 'svc-tts-2' | 'svc-tts-mini' | 'svc-tts-vivid';

/** A cloned voice as listed; ids are documented as integers but returned as prefixed strings. */
export interface Voice {
  id: string;
  file_id: string;
  created_at: number;
  object?: string;
}

/** Body of `POST /v1/audio/voices`. */
export interface VoiceCreateParams {
  model: VoiceModel;
  /** A `storage` upload of 5-10 s of mp3 or wav. */
  file_id: string;
  /** Transcript of the source audio; speech recognition is used when omitted. */
  text?: string;
  /** Text of a preview, at most 50 characters. */
  sample_text?: string;
}

/** Response of `POST /v1/audio/voices`. */
export interface VoiceCreated {
  id: string;
  object: 'audio.voice';
  duplicated?: boolean;
  sample_text?: string;
  /** Base64 wav preview. */
  sample_audio?: string;
}

/** Query of `GET /v1/audio/voices`; cursor ids are voice ids. */
export type VoiceListParams = CursorPageQuery;
