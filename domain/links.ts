/**
 * Where a client finds what the domain hands out: addresses belong to the transports, so the
 * domain asks this port (DomainDeps.links) and the gateway answers from its route table.
 */
export interface Links {
  /** The stored audio file of a generation. */
  audio(hash: string): string;
  /** The audio of a progressive generation as one stream, readable while it is made. */
  audioStream(hash: string): string;
  /** One chunk of a progressive generation, playable alone. */
  audioChunk(hash: string, index: number): string;
  /** The status of an asynchronous generation. */
  generationStatus(hash: string): string;
  /** The file of a finished report; compliance and dashboard reports are read at different addresses. */
  reportDownload(origin: 'compliance' | 'dashboard', reportId: string): string;
  /** What a report tells its reader to do to check a copy, and to sign it (printed in the PDF). */
  reportInstructions(): { verify: string; sign: string };
}
