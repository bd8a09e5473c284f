/** Times are unix seconds (UTC) everywhere in Parley (DESIGN.md §4). */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
