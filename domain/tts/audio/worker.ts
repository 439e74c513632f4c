/**
 * An audio worker thread (see domain/tts/audio-workers.ts): mock synthesis and MP3/Ogg encoding,
 * the CPU-heavy half of a generation, done here so the gateway's event loop keeps answering.
 */
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { encode, openLocalEncoder, type BlockEncoder } from './codec';
import { gcPacer } from './gc-pacer';
import { synthesizeSpeechLike } from './synth';
import type { WorkerReply, WorkerRequest } from './worker-protocol';

const { nice, progress } = workerData as { nice: number; progress: SharedArrayBuffer };
const done = new Int32Array(progress);

// Linux gives each thread its own nice value and setpriority(pid 0) sets the calling thread's only:
// this worker yields the CPU to the event loop's thread (and to everything else) whenever both want it.
try {
  os.setPriority(0, nice);
} catch {
  // Not permitted or not supported here: the worker still runs, at the process's priority.
}

const encoders = new Map<number, BlockEncoder>();
/** Each task's large buffers are dead once it is answered; collected as they pile up (gc-pacer.ts). */
const pacer = gcPacer();

function reply(message: WorkerReply, bytes?: Uint8Array) {
  parentPort!.postMessage(message, bytes ? [bytes.buffer as ArrayBuffer] : []);
  // Counted once the work is handed back: while the main thread is blocked, this still moves.
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
}

/** Bytes with an ArrayBuffer of their own (transferable without detaching anything shared). */
const owned = (bytes: Uint8Array) => (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice());

async function handle(req: WorkerRequest): Promise<Uint8Array | undefined> {
  switch (req.op) {
    case 'synthesize': {
      const { text, voice, speed, pitch, format, quality } = req;
      const pcm = synthesizeSpeechLike({ text, voice, speed, pitch });
      const data = owned((await encode(pcm, format, { quality })).data);
      pacer.passed(pcm.samples.byteLength + data.byteLength);
      return data;
    }
    case 'open':
      encoders.set(req.session, await openLocalEncoder(req.format, req.sampleRate, req.quality));
      return undefined;
    case 'encode': {
      const data = owned(await encoderOf(req.session).encode(req.samples));
      pacer.passed(req.samples.byteLength + data.byteLength);
      return data;
    }
    case 'finish': {
      const tail = await encoderOf(req.session).finalize();
      encoders.delete(req.session);
      return owned(tail);
    }
    case 'drop':
      encoders.delete(req.session);
      return undefined;
  }
}

function encoderOf(session: number): BlockEncoder {
  const encoder = encoders.get(session);
  if (!encoder) throw new Error(`no encoder session ${session} in this worker`);
  return encoder;
}

parentPort!.on('message', (req: WorkerRequest) => {
  handle(req).then(
    (bytes) => {
      if (req.id !== undefined) reply({ id: req.id, ok: true, bytes }, bytes);
    },
    (err: unknown) => {
      if (req.id === undefined) return;
      const e = err instanceof Error ? err : new Error(String(err));
      reply({ id: req.id, ok: false, error: { name: e.name, message: e.message } });
    },
  );
});
