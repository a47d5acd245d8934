/**
 * uploadAudio's speaker_count: optional; an integer from 1 to 50, refused on either side of each bound
 * (and as a fraction or text) with an error naming the field and the rule; stored as given.
 */
import type { Principal } from '../../../../services/core/access';
import { UPLOAD_LIMITS, validateUpload } from '../../../../services/core/uploads/validate';
import { ServiceError } from '../../../../services/platform/errors';

const member: Principal = {
  userId: 'u1',
  teamId: 't1',
  email: 'a@example.com',
  name: 'A',
  role: 'member',
  tier: 'pro',
  flags: [],
};
const config = { allowPrivateNetwork: false };
const upload = (speaker_count: unknown) =>
  validateUpload(member, { url: 'https://media.example.com/call.mp3', speaker_count: speaker_count as number }, config);

describe('speaker_count', () => {
  it('is optional', () => {
    expect(upload(undefined).speakerCount).toBeNull();
    expect(upload(null).speakerCount).toBeNull();
  });

  it.each([1, 2, 50])('takes %p', (n) => {
    expect(UPLOAD_LIMITS.speakerCountMax).toBe(50);
    expect(upload(n).speakerCount).toBe(n);
  });

  it.each([0, 51, -1, 2.5, '3'])('refuses %p, naming the field and the rule', (n) => {
    let error: unknown;
    try {
      upload(n);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).details).toEqual({ field: 'speaker_count', rule: 'an integer from 1 to 50' });
    expect((error as ServiceError).message).toBe(
      `speaker_count must be an integer from 1 to 50 (how many people speak); got ${JSON.stringify(n)}`,
    );
  });
});
