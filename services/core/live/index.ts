/** Live meetings: start, drive (append, pause, resume, end), the state machine, the active-meeting list. What other layers may import of this domain. */
export * from './protocol';
export * from './validate';
export * from './start';
export * from './drive';
export * from './store';
export * from './active';
