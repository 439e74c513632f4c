import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, fetchFile, gql, subscribe } from '../api';
import {
  CostEstimateDocument,
  GenerateSpeechDocument,
  LookUpHashDocument,
  ProgressiveSpeechDocument,
  ProviderCatalogueDocument,
  SpeechCacheStatsDocument,
  SpeechProviderStatsDocument,
  type GenerateInput,
  type LookUpHashQuery,
  type AudioFormat,
  type HashMode,
  type ProviderCatalogueQuery,
  type ProviderId,
  type Quality,
} from '../generated/graphql';
import { HASH_MODES, show, showId } from '../catalogue';
import { ErrorNote, formatBytes, formatTime, Section, Select, TextField, useAction, useLoad } from '../ui';
import { useCan, useViewer } from '../viewer';

type Provider = ProviderCatalogueQuery['providers'][number];

/** Text longer than one progressive chunk (the gateway cuts at 400 characters) streams chunk by chunk. */
const PROGRESSIVE_FROM_CHARS = 400;

interface Choice {
  provider: ProviderId;
  voice: string;
  format: AudioFormat;
  quality: Quality;
  speed: number;
}

interface Played {
  src: string;
  /** Playing from the stream while the rest is made: the outcome (cache, hash) is not known yet. */
  streaming?: boolean;
  cached: boolean;
  hash: string;
  detail: string;
}

/** Audio is played from its REST URL; when speech needs a key, the bytes are fetched with it first. */
function useAudioSource() {
  const viewer = useViewer();
  const blobUrl = useRef<string | null>(null);
  useEffect(() => () => void (blobUrl.current && URL.revokeObjectURL(blobUrl.current)), []);
  return async (audioUrl: string): Promise<string> => {
    if (viewer.speechOpen) return audioUrl;
    const blob = await fetchFile(audioUrl);
    if (blobUrl.current) URL.revokeObjectURL(blobUrl.current);
    blobUrl.current = URL.createObjectURL(blob);
    return blobUrl.current;
  };
}

export function SpeechPage() {
  const can = useCan();
  const viewer = useViewer();
  const mayGenerate = viewer.speechOpen || can('TTS_GENERATE');
  const mayRead = viewer.speechOpen || can('TTS_READ');
  const providers = useLoad(() => gql(ProviderCatalogueDocument), []);
  const [statsVersion, setStatsVersion] = useState(0);
  return (
    <div class="page">
      <h1>Speech</h1>
      <ErrorNote error={providers.error} />
      {providers.data && mayGenerate ? <Playground providers={providers.data.providers} onGenerated={() => setStatsVersion((v) => v + 1)} /> : null}
      {mayRead ? <Stats version={statsVersion} /> : null}
      {providers.data && mayGenerate ? <HashLookup providers={providers.data.providers} /> : null}
    </div>
  );
}

function ChoiceFields(props: { providers: Provider[]; choice: Choice; onChange: (c: Choice) => void; prefix: string }) {
  const { providers, choice } = props;
  const p = providers.find((x) => x.name === choice.provider) ?? providers[0];
  const pick = (provider: ProviderId) => {
    const next = providers.find((x) => x.name === provider)!;
    props.onChange({
      provider,
      voice: next.voices.includes(choice.voice) ? choice.voice : next.defaults.voice,
      format: next.formats.includes(choice.format) ? choice.format : next.defaults.format,
      quality: next.qualities.includes(choice.quality) ? choice.quality : next.defaults.quality,
      speed: Math.min(next.speed.max, Math.max(next.speed.min, choice.speed)),
    });
  };
  return (
    <div class="filters">
      <Select
        id={`${props.prefix}-provider`}
        label="Provider"
        value={choice.provider}
        options={providers.map((x) => [x.name, `${x.displayName}${x.configured ? '' : ' (not configured)'}`] as [string, string])}
        onChange={(v) => pick(v as ProviderId)}
      />
      <Select id={`${props.prefix}-voice`} label="Voice" value={choice.voice} options={p.voices} onChange={(voice) => props.onChange({ ...choice, voice })} />
      <Select
        id={`${props.prefix}-format`}
        label="Format"
        value={choice.format}
        options={p.formats.map((f) => [f, show(f)] as [string, string])}
        onChange={(format) => props.onChange({ ...choice, format: format as AudioFormat })}
      />
      <Select
        id={`${props.prefix}-quality`}
        label="Quality"
        value={choice.quality}
        options={p.qualities.map((q) => [q, show(q)] as [string, string])}
        onChange={(quality) => props.onChange({ ...choice, quality: quality as Quality })}
      />
      <div class="field">
        <label for={`${props.prefix}-speed`}>Speed ({choice.speed.toFixed(1)}×)</label>
        <input
          id={`${props.prefix}-speed`}
          type="range"
          min={p.speed.min}
          max={p.speed.max}
          step={0.05}
          value={choice.speed}
          onInput={(e) => props.onChange({ ...choice, speed: Number((e.target as HTMLInputElement).value) })}
        />
      </div>
    </div>
  );
}

/** The API's own defaults (as `providers` lists them), so a request left as it is equals one that names no option. */
function initialChoice(providers: Provider[]): Choice {
  const p = providers.find((x) => x.default && x.configured) ?? providers.find((x) => x.configured) ?? providers[0];
  const d = p.defaults;
  return { provider: p.name, voice: d.voice, format: d.format, quality: d.quality, speed: d.speed };
}

const inputOf = (text: string, c: Choice): GenerateInput => ({
  text,
  options: { provider: c.provider, voice: c.voice, format: c.format, quality: c.quality, speed: c.speed },
});

function Playground(props: { providers: Provider[]; onGenerated: () => void }) {
  const viewer = useViewer();
  const [text, setText] = useState('Hello from the gateway console.');
  const [choice, setChoice] = useState<Choice>(() => initialChoice(props.providers));
  const [played, setPlayed] = useState<Played | null>(null);
  const [chunks, setChunks] = useState<{ total: number; completed: number; progress: number } | null>(null);
  const [estimate, setEstimate] = useState<{ text: string; error: unknown }>({ text: '', error: null });
  const cancel = useRef<(() => void) | null>(null);
  const audioSource = useAudioSource();
  const progressive = text.length > PROGRESSIVE_FROM_CHARS;

  // The estimate follows the text as it is typed (debounced; the last answer wins).
  useEffect(() => {
    if (!text.trim()) return setEstimate({ text: '', error: null });
    let live = true;
    const t = setTimeout(() => {
      gql(CostEstimateDocument, { input: inputOf(text, choice) }).then(
        ({ estimate: e }) =>
          live &&
          setEstimate({ text: `${e.characterCount} characters · ${e.cost.toFixed(6)} ${e.currency} (${showId(e.provider)}, ${show(e.quality)})`, error: null }),
        (error) => live && setEstimate({ text: '', error }),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [text, choice]);
  useEffect(() => () => cancel.current?.(), []);

  const generate = useAction(async () => {
    setPlayed(null);
    setChunks(null);
    if (!progressive) {
      const { generate: g } = await gql(GenerateSpeechDocument, { input: inputOf(text, choice) });
      setPlayed({
        src: await audioSource(g.audioUrl),
        cached: g.cached,
        hash: g.hash,
        detail: `${g.duration.toFixed(1)} s · ${formatBytes(g.metadata.fileSize)} · ${showId(g.metadata.provider)}/${g.metadata.voice} · ${g.cost.toFixed(6)} USD`,
      });
      props.onGenerated();
      return;
    }
    await new Promise<void>((resolve, reject) => {
      cancel.current?.();
      // The stream `started` names: played at once when speech is open; fetched with the key (and
      // played when it ends) when speech is keyed, since an <audio> element cannot send the key.
      let stream: Promise<string> | null = null;
      cancel.current = subscribe(
        ProgressiveSpeechDocument,
        { input: inputOf(text, choice) },
        {
          next: ({ generateProgressive: e }) => {
            if (e.type === 'STARTED') {
              setChunks({ total: e.totalChunks ?? 1, completed: 0, progress: 0 });
              if (e.streamUrl) {
                stream = audioSource(e.streamUrl);
                if (viewer.speechOpen) setPlayed({ src: e.streamUrl, streaming: true, cached: false, hash: '', detail: 'playing while the rest is made' });
              }
            } else if (e.type === 'PROGRESS') setChunks({ total: e.total ?? 1, completed: e.completed ?? 0, progress: e.progress ?? 0 });
            else if (e.type === 'COMPLETE' && e.audioUrl) {
              setChunks((c) => ({ total: e.chunks ?? c?.total ?? 1, completed: e.chunks ?? c?.total ?? 1, progress: 100 }));
              const audioUrl = e.audioUrl;
              (stream ?? audioSource(audioUrl))
                .catch(() => audioSource(audioUrl))
                .then((src) => {
                  setPlayed({ src, cached: !!e.cached, hash: e.hash ?? '', detail: `${(e.duration ?? 0).toFixed(1)} s · ${e.chunks} chunks` });
                  props.onGenerated();
                  resolve();
                }, reject);
            } else if (e.type === 'ERROR') {
              setPlayed(null);
              reject(new ApiError(e.code ?? 'GENERATION_ERROR', e.message ?? 'Generation failed'));
            }
          },
          error: (err) => {
            setPlayed(null);
            reject(err);
          },
          complete: () => resolve(),
        },
      );
    });
  });

  return (
    <Section title="Playground" id="playground">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void generate.run();
        }}
      >
        <TextField id="speech-text" label="Text" value={text} onInput={setText} multiline required />
        <ChoiceFields providers={props.providers} choice={choice} onChange={setChoice} prefix="speech" />
        <p class="estimate" aria-live="polite" data-testid="estimate">
          {estimate.text ? `Estimated cost: ${estimate.text}` : ''}
        </p>
        <ErrorNote error={estimate.error} />
        <div class="buttons">
          <button type="submit" class="primary" disabled={generate.busy || !text.trim()}>
            {generate.busy ? 'Generating…' : progressive ? 'Generate (progressive)' : 'Generate'}
          </button>
          {progressive ? (
            <span class="hint">Long text: made in chunks of up to {PROGRESSIVE_FROM_CHARS} characters, with progress; playback starts with the first.</span>
          ) : null}
        </div>
      </form>
      <ErrorNote error={generate.error} />
      {chunks ? <ChunkBars {...chunks} /> : null}
      {played ? (
        <div class="played" data-testid="played">
          <p role="status">
            {played.streaming ? (
              <span class="pill pill-in-progress" data-testid="stream-state">
                Streaming
              </span>
            ) : (
              <span class={`pill ${played.cached ? 'pill-completed' : 'pill-in-progress'}`} data-testid="cache-state">
                {played.cached ? 'From the cache' : 'Newly generated'}
              </span>
            )}{' '}
            {played.detail}
          </p>
          <audio controls autoplay src={played.src} aria-label="Generated speech" data-testid="audio" />
          {played.hash ? (
            <p class="hint">
              Hash <code>{played.hash}</code>
            </p>
          ) : null}
        </div>
      ) : null}
    </Section>
  );
}

/** One bar per chunk, filled as chunks complete (the API reports how many, not which), and the total. */
function ChunkBars(props: { total: number; completed: number; progress: number }) {
  return (
    <div class="chunks" data-testid="chunks">
      <label for="overall-progress">Overall {Math.round(props.progress)} %</label>
      <progress id="overall-progress" max={100} value={props.progress} data-testid="overall-progress" />
      <ol class="chunk-bars" aria-label={`${props.completed} of ${props.total} chunks done`}>
        {Array.from({ length: props.total }, (_, i) => (
          <li key={i}>
            <progress
              max={100}
              value={i < props.completed ? 100 : 0}
              aria-label={`Chunk ${i + 1}: ${i < props.completed ? 'done' : 'waiting'}`}
              data-testid="chunk-bar"
            />
          </li>
        ))}
      </ol>
    </div>
  );
}

function Stats(props: { version: number }) {
  const can = useCan();
  const providers = useLoad(() => gql(SpeechProviderStatsDocument), [props.version]);
  const cache = useLoad(() => (can('TTS_ADMIN') ? gql(SpeechCacheStatsDocument) : Promise.resolve(null)), [props.version]);
  return (
    <Section title="Statistics" id="speech-stats">
      <ErrorNote error={providers.error || cache.error} />
      {cache.data ? (
        <p data-testid="cache-stats">
          {cache.data.cacheStats.totalEntries === 0
            ? 'Cache: empty. Generated audio is kept here, so the same request again is answered at once.'
            : `Cache: ${cache.data.cacheStats.totalEntries} entries, ${formatBytes(cache.data.cacheStats.totalSize)}; oldest ${formatTime(cache.data.cacheStats.oldestEntry)}, newest ${formatTime(cache.data.cacheStats.newestEntry)}`}
        </p>
      ) : null}
      {providers.data && !providers.data.providerStats.some((p) => p.requests > 0) ? (
        <p class="hint">Nothing generated yet: each provider's requests, errors, characters, cost and latency are counted here.</p>
      ) : providers.data ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Provider statistics</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Requests</th>
                <th scope="col">Errors</th>
                <th scope="col">Characters</th>
                <th scope="col">Cost (USD)</th>
                <th scope="col">Avg latency</th>
              </tr>
            </thead>
            <tbody>
              {providers.data.providerStats.map((p) => (
                <tr key={p.provider}>
                  <th scope="row">{showId(p.provider)}</th>
                  <td>{p.requests}</td>
                  <td>{p.errors}</td>
                  <td>{p.charactersProcessed}</td>
                  <td>{p.totalCost.toFixed(6)}</td>
                  <td>{Math.round(p.avgLatency)} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Section>
  );
}

function HashLookup(props: { providers: Provider[] }) {
  const [text, setText] = useState('');
  const [mode, setMode] = useState<HashMode>('CONTENT');
  const [choice, setChoice] = useState<Choice>(() => initialChoice(props.providers));
  const [result, setResult] = useState<LookUpHashQuery['hashLookup'] | null>(null);
  const [src, setSrc] = useState<string | null>(null);
  const audioSource = useAudioSource();
  const look = useAction(async () => {
    setSrc(null);
    const { hashLookup } = await gql(LookUpHashDocument, { input: { text, hashMode: mode, options: inputOf(text, choice).options } });
    setResult(hashLookup);
    if (hashLookup.found && hashLookup.audioUrl) setSrc(await audioSource(hashLookup.audioUrl));
  });
  return (
    <Section title="Hash look-up" id="hash-lookup">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void look.run();
        }}
      >
        <TextField id="lookup-text" label="Text to look up" value={text} onInput={setText} required />
        <ChoiceFields providers={props.providers} choice={choice} onChange={setChoice} prefix="lookup" />
        <Select id="lookup-mode" label="Hash mode" value={mode} options={HASH_MODES} onChange={(v) => setMode(v as HashMode)} />
        <button type="submit" disabled={look.busy || !text.trim()}>
          Look up
        </button>
      </form>
      <ErrorNote error={look.error} />
      {result ? (
        <div role="status" data-testid="lookup-result">
          {result.found ? (
            <p>
              Found ({result.mode}
              {result.confidence != null ? `, confidence ${result.confidence}` : ''}): <code>{result.hash}</code>
              {result.metadata ? ` · ${showId(result.metadata.provider)}/${result.metadata.voice}, ${result.metadata.duration.toFixed(1)} s` : ''}
            </p>
          ) : (
            <p>Not in the cache{result.message ? `: ${result.message}` : ''}.</p>
          )}
          {src ? <audio controls src={src} aria-label="Cached speech" /> : null}
        </div>
      ) : null}
    </Section>
  );
}
