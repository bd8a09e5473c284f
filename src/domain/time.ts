/** Times are unix seconds (UTC) everywhere in Parley (docs/design.md#storage). */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
