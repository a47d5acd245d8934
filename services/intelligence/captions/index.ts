export { parseCaptions, UNKNOWN_SPEAKER, type ParsedCaptions } from './parse';
export { detectCaptionFormat, CAPTION_CONTENT_TYPES, type CaptionFormat } from './format';
export { cleanCueText, utterancesOfCue } from './speakers';
