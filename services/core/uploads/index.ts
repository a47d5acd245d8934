/** Uploads: uploadAudio's rules and command, and the sealed download instructions the worker opens. What other layers may import of this domain. */
export * from './types';
export * from './validate';
export * from './upload';
export * from './fetch-secret';
