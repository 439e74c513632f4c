// What a generation answers, plain or progressive: shared by the generation services and the transports.
export interface GenerationResponse {
  hash: string;
  audioUrl: string;
  cached: boolean;
  duration: number;
  cost: number;
  metadata: { provider: string; voice: string; generatedAt: string; fileSize: number; format: string };
}

export const PROGRESS_EVENT_TYPES = ['started', 'progress', 'complete', 'error'] as const;

export type ProgressEvent =
  | { type: 'started'; totalChunks: number; streamUrl: string }
  | { type: 'progress'; completed: number; total: number; progress: number; chunkIndex?: number; chunkAudioUrl?: string }
  | {
      type: 'complete';
      hash: string;
      audioUrl: string;
      duration: number;
      chunks: number;
      parallelTime: number;
      cached: boolean;
      metadata: { provider: string; voice: string; generatedAt: string; fileSize: number };
    }
  | { type: 'error'; message: string; code?: string };

/** The last event of a progressive generation whose caller's key stopped being valid. */
export const lostKeyEvent = (loss: { code: string; message: string }): ProgressEvent => ({ type: 'error', message: loss.message, code: loss.code });
