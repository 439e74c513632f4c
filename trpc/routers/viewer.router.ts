import { procedure } from '../init';

/** `auth.viewer`: the calling key and its effective permissions (any valid key). */
export const viewerProcedure = procedure.query(({ ctx }) => ctx.services.viewer(ctx.domain));
