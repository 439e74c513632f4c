/**
 * A transport's parsed input as plain JSON data (type-graphql hands resolvers class instances with
 * prototypes; the domain validates plain values, the same on every transport).
 */
export const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? {}));
