/** A meeting's transcript arriving: what the transcription and live activities store. What other layers may import of this domain. */
export * from './ingest';
export * from './chunks';
