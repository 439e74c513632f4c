import type { DomainContext } from '../domain/context';
import type { Services } from '../domain/services';

/** What every resolver receives: the request's domain context and the services. */
export interface GqlContext {
  domain: DomainContext;
  services: Services;
  /** Told the operation once it is known (the /metrics route label of HTTP requests). */
  onOperation?: (operationName: string | null) => void;
}
