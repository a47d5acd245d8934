/**
 * Uploads: uploadAudio's rules and command, and the sealed download instructions the worker opens.
 *
 * The domain's API: what other layers and domains use. Tests that need more import the file itself.
 */

// What uploadAudio takes and stores.
export type { Attendee, AttendeeInput, UploadInput, UploadOptions } from './types';

// Attendees checked.
export { validateAttendees } from './validate';

// The uploadAudio command.
export { uploadAudio } from './upload';

// The sealed download instructions the worker opens.
export { MEDIA_HARD_CEILING_BYTES, readFetchSecret } from './fetch-secret';
export type { FetchSecret } from './fetch-secret';
