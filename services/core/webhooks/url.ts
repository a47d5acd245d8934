/** The rules of a webhook URL, for the saved webhooks and an upload's own. */
import { invalid, ServiceError } from '../../platform/errors';
import { isPrivateLiteralHost } from '../../net/address-policy';
import { parseUrl } from '../input';

const HTTPS_RULE = 'must be a valid https URL';

/**
 * A webhook URL as saved: a valid https URL of at most 2048 characters, no credentials in it, and
 * (unless ALLOW_PRIVATE_NETWORK) not a private, loopback or reserved address literal. Names are checked
 * again after DNS at every send (services/net). The fragment, never sent, is dropped.
 */
export function validateWebhookUrl(field: string, raw: unknown, opts: { allowPrivateNetwork: boolean }): string {
  if (raw === undefined || raw === null || (typeof raw === 'string' && !raw.trim())) {
    throw new ServiceError(
      'args_required',
      `${field} is required: an https URL like https://example.com/hooks/transcripts`,
      { field, rule: 'required' },
    );
  }
  if (typeof raw !== 'string') throw invalid(field, HTTPS_RULE, `${field} ${HTTPS_RULE}`);
  const url = parseUrl(field, raw, HTTPS_RULE, 'https://example.com/hooks/transcripts');
  if (url.protocol !== 'https:') {
    throw invalid(
      field,
      HTTPS_RULE,
      `${field} ${HTTPS_RULE}; got a ${url.protocol.replace(/:$/, '')} URL (webhooks are only sent over https)`,
    );
  }
  if (!url.hostname) throw invalid(field, HTTPS_RULE, `${field} ${HTTPS_RULE} with a host name`);
  if (url.username || url.password) {
    throw invalid(
      field,
      'no credentials in the URL',
      `${field} must not carry a user name or password; verify requests with the x-hub-signature header instead`,
    );
  }
  if (!opts.allowPrivateNetwork && isPrivateLiteralHost(url.hostname)) {
    throw invalid(
      field,
      'must be a public address',
      `${field} points at a private, loopback or reserved address (${url.hostname}); use a publicly reachable host`,
    );
  }
  url.hash = '';
  return url.toString();
}
