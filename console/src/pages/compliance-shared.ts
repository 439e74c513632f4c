import { useEffect, useRef } from 'preact/hooks';
import type { HistoryPeriod } from '../generated/graphql';

/** What the compliance page's parts share: the "any" choice of a filter, period lengths, the page size, live reloads. */
export const ANY = [['', 'any']] as [string, string][];
export const PERIOD_DAYS: Record<HistoryPeriod, number> = { LAST_7_DAYS: 7, LAST_30_DAYS: 30, LAST_90_DAYS: 90, LAST_YEAR: 365 };
export const PAGE_SIZE = 10;

/** Reloads after a burst of live events settles, so ten changes cost one request. */
export function useDebouncedReload(reload: () => void, ms = 250): () => void {
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return () => {
    clearTimeout(timer.current);
    timer.current = window.setTimeout(reload, ms);
  };
}
