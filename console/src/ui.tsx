import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { sentenceFor } from './error-sentences';

/**
 * An API error as a sentence a person reads (by its code), then the server's own message as the
 * detail and the code for whoever reports it; announced to screen readers; never a blank page.
 */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : new ApiError('CONSOLE_ERROR', error instanceof Error ? error.message : String(error));
  const sentence = sentenceFor(e.code);
  return (
    <div class="error" role="alert" data-code={e.code}>
      <strong>{sentence ?? e.message}</strong>
      {sentence && e.message && e.message !== sentence ? <span class="error-detail"> {e.message}</span> : null} <small class="error-code">{e.code}</small>
      {e.fields?.length ? (
        <ul>
          {e.fields.map((f) => (
            <li key={f.field + f.message}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Section(props: { title: string; id: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={`${props.id}-title`} id={props.id}>
      <header class="card-head">
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/**
 * Label and control side by side, not nested: a nested control's value would become part of its
 * accessible name ("Framework gdpr").
 */
export function Select(props: {
  label: string;
  value: string;
  options: readonly (string | [string, string])[];
  onChange: (v: string) => void;
  id: string;
  name?: string;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name ?? props.id} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        {props.options.map((o) => {
          const [value, text] = typeof o === 'string' ? [o, o || 'any'] : o;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </div>
  );
}

export function TextField(props: {
  label: string;
  value: string;
  onInput: (v: string) => void;
  id: string;
  required?: boolean;
  type?: string;
  placeholder?: string;
  multiline?: boolean;
  autoComplete?: string;
}) {
  const onInput = (e: Event) => props.onInput((e.target as HTMLInputElement).value);
  return (
    <div class="field">
      <label for={props.id} class={props.required ? 'required' : undefined}>
        {props.label}
      </label>
      {props.multiline ? (
        <textarea id={props.id} name={props.id} value={props.value} onInput={onInput} required={props.required} placeholder={props.placeholder} rows={4} />
      ) : (
        <input
          id={props.id}
          name={props.id}
          type={props.type ?? 'text'}
          value={props.value}
          onInput={onInput}
          required={props.required}
          placeholder={props.placeholder}
          autoComplete={props.autoComplete ?? 'off'}
        />
      )}
    </div>
  );
}

/** Loads data and reloads it on demand; keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const seq = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === seq.current && setState({ data, error: null, loading: false }),
      (error) => mine === seq.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** Runs an action, keeping its error and a busy flag for the button that started it. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn(...args);
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, setError };
}

export function Pager(props: { offset: number; limit: number; total: number; onPage: (offset: number) => void; label: string }) {
  const { offset, limit, total } = props;
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => props.onPage(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span aria-live="polite">
        Page {page} of {pages} ({total} in all)
      </span>
      <button type="button" disabled={offset + limit >= total} onClick={() => props.onPage(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

export const formatTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
export const formatBytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
