import type { EncodeQuality } from './codec';
import type { AudioFormat } from './types';

/** What the gateway asks an audio worker (worker.ts); `id` is answered, a request without one is not. */
export type WorkerRequest =
  | { id: number; op: 'synthesize'; text: string; voice: string; speed: number; pitch?: number; format: AudioFormat; quality: EncodeQuality }
  | { id: number; op: 'open'; session: number; format: 'mp3' | 'ogg'; sampleRate: number; quality: EncodeQuality }
  | { id: number; op: 'encode'; session: number; samples: Float32Array }
  | { id: number; op: 'finish'; session: number }
  | { id?: undefined; op: 'drop'; session: number };

export type WorkerReply = { id: number; ok: true; bytes?: Uint8Array } | { id: number; ok: false; error: { name: string; message: string } };
