/** What a value must be to enter: the shared validators that name the field and the rule, and new rows' ids. */
export {
  URL_MAX,
  hasControl,
  hasControlInText,
  isEmail,
  isStorableText,
  optionalString,
  parseUrl,
  requireEmail,
  requireLength,
  requireOneOf,
  requireStorableText,
  required,
} from './validate';
export { newId } from './ids';
