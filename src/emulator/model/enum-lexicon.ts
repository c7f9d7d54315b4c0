/**
 * Words that point to common enum members, so "we were charged twice" reads as `billing` and "the export
 * button crashes" as `bug`. Keys are lower-case members (or words of members: `feature_request` also
 * looks up `feature` and `request`).
 */
export const ENUM_LEXICON: Record<string, string[]> = Object.fromEntries(
  Object.entries({
    billing: 'charge|charged|invoice|payment|pay|paid|refund|bill|price|subscription|card|twice|money',
    payment: 'charge|charged|invoice|pay|paid|refund|card',
    bug: 'crash|crashe|crashing|error|broken|exception|freeze|fail|failing|glitch|doesn|button',
    technical: 'crash|error|broken|bug|fail|slow',
    account: 'login|log in|sign in|password|locked|username|2fa|access|profile',
    feature: 'add|feature|support for|would like|wish|could you|dark mode|suggest|idea',
    request: 'please add|would like|could you|wish',
    shipping: 'delivery|shipping|parcel|package|tracking|arrive|arrived',
    urgent: 'urgent|asap|immediately|emergency|outage|down|critical|production',
    critical: 'outage|down|critical|data loss|production|security',
    high: "crash|crashe|broken|cannot|can't|unable|fail|error|twice|blocked|lost|charged",
    low: 'please add|nice to have|minor|cosmetic|dark mode|suggestion|question|typo|wish|would like',
    positive:
      'love|great|thank|excellent|happy|awesome|good|nice|perfect|works|just works|easy|fast|quick|smooth|simple|reliable|recommend|amazing',
    negative: 'hate|terrible|awful|angry|broken|worst|disappointed|bad|crash|twice|cannot',
    retrieval: 'knowledge base|knowledge|retrieval|search|rag|index',
    storage: 'voice|clone|audio|recording|sample',
    extract: 'read|parse|content|extract',
    yes: 'yes|sure|ok|okay|agree',
    no: 'no|not|never|decline',
    celsius: '°c|celsius|metric',
    fahrenheit: '°f|fahrenheit|imperial',
  }).map(([member, cues]) => [member, cues.split('|')]),
);

/** Members to fall back to when nothing in the input points anywhere. */
export const NEUTRAL_MEMBERS = ['medium', 'normal', 'neutral', 'other', 'general', 'unknown', 'none', 'auto'];
