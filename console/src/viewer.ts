import { createContext } from 'preact';
import { useContext, useEffect, useRef } from 'preact/hooks';
import type { LiveEventsSubscription, Permission, ViewerQuery } from './generated/graphql';

export type Viewer = ViewerQuery['viewer'];
export type LiveEvent = LiveEventsSubscription['complianceEvents'];

export const ViewerContext = createContext<Viewer | null>(null);

/** Whether the signed-in key holds a permission: what it may not do is not offered. */
export function useCan(): (permission: Permission) => boolean {
  const viewer = useContext(ViewerContext);
  return (permission) => !!viewer && (viewer.isAdmin || viewer.permissions.includes(permission));
}

export function useViewer(): Viewer {
  return useContext(ViewerContext)!;
}

// --- live compliance events, fanned out from the app's one subscription ---

type Listener = (e: LiveEvent) => void;
const listeners = new Set<Listener>();
export function publishLive(e: LiveEvent) {
  for (const l of listeners) l(e);
}

/** Calls `onEvent` for each live event whose type (the enum name, e.g. REQUIREMENT_UPDATED) starts with one of `prefixes`. */
export function useLiveEvents(prefixes: string[], onEvent: Listener) {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = prefixes.join(',');
  useEffect(() => {
    const l: Listener = (e) => {
      if (prefixes.some((p) => e.type.startsWith(p))) handler.current(e);
    };
    listeners.add(l);
    return () => void listeners.delete(l);
  }, [key]);
}
