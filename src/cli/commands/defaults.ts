/** Model of `svc-agents chat` and `kb ask` unless `--model` or `SVC_MODEL` says otherwise (the spec recommends it for tools). */
export const defaultChatModel = 'svc-3.5-flash-2603';

/** Model of `svc-agents image`: the only image model of the spec. */
export const defaultImageModel = 'svc-1x-medium';

/** Model of `svc-agents voice clone`. */
export const defaultVoiceModel = 'svc-tts-mini';
